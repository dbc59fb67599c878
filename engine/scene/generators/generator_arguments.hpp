#pragma once
// Internal to the generator registries: a generator's arguments, as YAML
// scalar text, read against its parameter list (defaults for those not given).
// Every failure is a ModelError naming the generator and the parameter.
#include <string>

#include <loopsim/scene/generators.hpp>

namespace loopsim::generators {

class Arguments {
 public:
  /// Throws on a given name that is not one of info's parameters.
  Arguments(const GeneratorInfo& info, const GeneratorArguments& given);

  double number(const std::string& name) const;  // finite
  int integer(const std::string& name) const;
  bool boolean(const std::string& name) const;   // true | false
  std::string choice(const std::string& name) const;

 private:
  const GeneratorParameter* parameter(const std::string& name) const;
  std::string raw(const std::string& name) const;
  [[noreturn]] void fail(const std::string& name, const std::string& why) const;

  const GeneratorInfo& info_;
  const GeneratorArguments& given_;
};

/// A number as the registry writes defaults ("0.2", "6").
std::string defaultText(double x);

}  // namespace loopsim::generators
