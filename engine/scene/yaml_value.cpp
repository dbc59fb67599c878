#include <loopsim/scene/yaml_value.hpp>

#include <cmath>
#include <sstream>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/name_suggestion.hpp>

namespace loopsim::scene_yaml {

std::string YamlValue::where() const {
  std::string out = path_.empty() ? "(top level)" : path_;
  const YAML::Mark mark = node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark();
  if (mark.line >= 0) out += " (line " + std::to_string(mark.line + 1) + ")";
  return out;
}

void YamlValue::fail(const std::string& message) const { throw ModelError(file_, where(), message); }

void rejectDuplicateKeys(const YAML::Node& node, const std::string& file, const std::string& path) {
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) rejectDuplicateKeys(node[i], file, path + "[" + std::to_string(i) + "]");
    return;
  }
  if (!node.IsMap()) return;
  std::vector<std::pair<std::string, int>> seen;  // key, line (small maps: a linear scan is fine)
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) continue;  // requireMap reports non-scalar keys
    const std::string key = kv.first.Scalar();
    const int line = kv.first.Mark().line + 1;
    for (const auto& [other, other_line] : seen) {
      if (other == key) {
        const std::string where = (path.empty() ? key : path + "." + key) + " (line " + std::to_string(line) + ")";
        throw ModelError(file, where, "duplicate key '" + key + "' (first given on line " + std::to_string(other_line) +
                                          "); give each key once");
      }
    }
    seen.emplace_back(key, line);
    rejectDuplicateKeys(kv.second, file, path.empty() ? key : path + "." + key);
  }
}

std::string YamlValue::valueText() const {
  if (!node_.IsDefined()) return "nothing";
  if (node_.IsNull()) return "null";
  if (node_.IsScalar()) return "'" + node_.Scalar() + "'";
  if (node_.IsSequence()) return "a list";
  return "a map";
}

bool YamlValue::has(const std::string& key) const {
  if (!node_.IsMap()) return false;
  const YAML::Node& n = node_;
  return static_cast<bool>(n[key]);
}

YamlValue YamlValue::operator[](const std::string& key) const {
  const std::string path = path_.empty() ? key : path_ + "." + key;
  if (!node_.IsMap()) return {YAML::Node(YAML::NodeType::Undefined), file_, path};
  const YAML::Node& n = node_;
  const YAML::Node child = n[key];
  // Undefined children carry no mark: report the parent's line instead.
  return {child ? child : YAML::Node(YAML::NodeType::Undefined), file_, path};
}

YamlValue YamlValue::at(std::size_t index) const {
  return {node_[index], file_, path_ + "[" + std::to_string(index) + "]"};
}

std::size_t YamlValue::size() const { return node_.size(); }

std::vector<std::string> YamlValue::keys() const {
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

void YamlValue::requireMap(const std::vector<std::string>& allowed) const {
  if (!node_.IsMap()) fail("expected a map, got " + valueText());
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail("keys must be plain names");
    const std::string key = kv.first.Scalar();
    bool known = false;
    for (const auto& a : allowed) known = known || a == key;
    if (!known) {
      std::string all;
      for (const auto& a : allowed) all += (all.empty() ? "" : ", ") + a;
      const YamlValue at_key(kv.first, file_, path_.empty() ? key : path_ + "." + key);
      at_key.fail("unknown key '" + key + "'" + didYouMean(key, allowed) + "; valid keys: " + all);
    }
  }
}

void YamlValue::requireSequence() const {
  if (!node_.IsSequence()) fail("expected a list, got " + valueText());
}

double YamlValue::number() const {
  if (!node_.IsScalar()) fail("expected a number, got " + valueText());
  double x = 0.0;
  try {
    x = node_.as<double>();
  } catch (const YAML::Exception&) {
    fail("expected a number, got " + valueText());
  }
  if (!std::isfinite(x)) fail("expected a finite number, got " + valueText());
  return x;
}

double YamlValue::positiveNumber() const {
  const double x = number();
  if (x <= 0.0) fail("must be > 0, got " + valueText());
  return x;
}

double YamlValue::nonNegativeNumber() const {
  const double x = number();
  if (x < 0.0) fail("must be >= 0, got " + valueText());
  return x;
}

int YamlValue::integer() const {
  const double x = number();
  if (x != std::floor(x) || std::abs(x) > 1e9) fail("expected an integer, got " + valueText());
  return static_cast<int>(x);
}

bool YamlValue::boolean() const {
  if (node_.IsScalar()) {
    const std::string& s = node_.Scalar();
    if (s == "true" || s == "True" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "no") return false;
  }
  fail("expected true or false, got " + valueText());
}

std::string YamlValue::string() const {
  if (!node_.IsScalar()) fail("expected a name, got " + valueText());
  return node_.Scalar();
}

std::vector<double> YamlValue::numbers(int expected_size) const {
  if (!node_.IsSequence()) {
    fail("expected a list of " + (expected_size > 0 ? std::to_string(expected_size) + " " : std::string()) +
         "numbers, got " + valueText());
  }
  if (expected_size >= 0 && static_cast<int>(node_.size()) != expected_size) {
    fail("expected " + std::to_string(expected_size) + " numbers, got " + std::to_string(node_.size()));
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back(at(i).number());
  return out;
}

std::vector<std::string> YamlValue::strings() const {
  if (!node_.IsSequence()) fail("expected a list of names, got " + valueText());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < node_.size(); ++i) out.push_back(at(i).string());
  return out;
}

Vector3 YamlValue::vector3() const {
  const auto x = numbers(3);
  return {x[0], x[1], x[2]};
}

Vector4 YamlValue::rgba() const {
  const auto x = numbers(4);
  for (double c : x) {
    if (c < 0.0 || c > 1.0) fail("rgba components must be in [0, 1]");
  }
  return {x[0], x[1], x[2], x[3]};
}

Quaternion YamlValue::unitQuaternion() const {
  const auto x = numbers(4);
  const Quaternion quat(x[3], x[0], x[1], x[2]);
  if (std::abs(quat.norm() - 1.0) > 1e-6) {
    std::ostringstream os;
    os << "quaternion [" << x[0] << ", " << x[1] << ", " << x[2] << ", " << x[3] << "] is not unit (norm "
       << quat.norm() << "); quaternions are [x, y, z, w]";
    fail(os.str());
  }
  return quat.normalized();
}

SE3 YamlValue::pose() const {
  requireMap({"position", "quaternion", "rpy"});
  SE3 out;
  if (has("position")) out.t = (*this)["position"].vector3();
  if (has("quaternion") && has("rpy")) fail("give either 'quaternion' or 'rpy', not both");
  if (has("quaternion")) out.R = (*this)["quaternion"].unitQuaternion().toRotationMatrix();
  if (has("rpy")) {
    const Vector3 rpy = (*this)["rpy"].vector3();
    // URDF convention: fixed-axis roll about x, then pitch about y, then yaw about z.
    out.R = (Eigen::AngleAxisd(rpy.z(), Vector3::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vector3::UnitY()) *
             Eigen::AngleAxisd(rpy.x(), Vector3::UnitX()))
                .toRotationMatrix();
  }
  return out;
}

}  // namespace loopsim::scene_yaml
