#include <loopsim/scene/generators/generator_arguments.hpp>

#include <cmath>
#include <sstream>

#include <loopsim/model/errors.hpp>

namespace loopsim::generators {

Arguments::Arguments(const GeneratorInfo& info, const GeneratorArguments& given) : info_(info), given_(given) {
  for (const auto& [name, value] : given) {
    if (parameter(name) == nullptr) fail(name, "unknown parameter of generator '" + info.name + "'");
  }
}

double Arguments::number(const std::string& name) const {
  const std::string text = raw(name);
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || !std::isfinite(x)) fail(name, "expected a finite number, got '" + text + "'");
  return x;
}

int Arguments::integer(const std::string& name) const {
  const std::string text = raw(name);
  std::size_t used = 0;
  double x = 0.0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || x != std::floor(x) || std::abs(x) > 1e9) {
    fail(name, "expected an integer, got '" + text + "'");
  }
  return static_cast<int>(x);
}

bool Arguments::boolean(const std::string& name) const {
  const std::string text = raw(name);
  if (text == "true") return true;
  if (text == "false") return false;
  fail(name, "expected true or false, got '" + text + "'");
}

std::string Arguments::choice(const std::string& name) const {
  const std::string text = raw(name);
  const GeneratorParameter* p = parameter(name);
  for (const auto& c : p->choices) {
    if (c == text) return text;
  }
  std::string all;
  for (const auto& c : p->choices) all += (all.empty() ? "" : ", ") + c;
  fail(name, "expected one of " + all + ", got '" + text + "'");
}

const GeneratorParameter* Arguments::parameter(const std::string& name) const {
  for (const auto& p : info_.parameters) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string Arguments::raw(const std::string& name) const {
  const auto it = given_.find(name);
  if (it != given_.end()) return it->second;
  return parameter(name)->default_value;
}

void Arguments::fail(const std::string& name, const std::string& why) const {
  throw ModelError("", "generator '" + info_.name + "' parameter '" + name + "'", why);
}

std::string defaultText(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

}  // namespace loopsim::generators
