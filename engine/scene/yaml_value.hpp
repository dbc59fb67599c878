#pragma once
// Internal to engine/scene: a YAML node that knows its file and path
// ("constraints[2].rows") so every error names file, path, line and value.
// Include only from .cpp files (yaml-cpp is a private dependency).
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include <loopsim/spatial/se3.hpp>

namespace loopsim::scene_yaml {

class YamlValue {
 public:
  YamlValue(YAML::Node node, std::string file, std::string path)
      : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)) {}

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  /// "models[0].pose (line 12)".
  std::string where() const;

  bool has(const std::string& key) const;
  YamlValue operator[](const std::string& key) const;  // missing key: an undefined value with that path
  YamlValue at(std::size_t index) const;
  std::size_t size() const;
  bool isMap() const { return node_.IsMap(); }
  bool isSequence() const { return node_.IsSequence(); }
  bool isScalar() const { return node_.IsScalar(); }

  /// Requires a map whose keys are all in `allowed`: an unknown key fails with
  /// the nearest valid key suggested.
  void requireMap(const std::vector<std::string>& allowed) const;
  void requireSequence() const;
  std::vector<std::string> keys() const;

  double number() const;          // finite
  double positiveNumber() const;  // finite and > 0
  double nonNegativeNumber() const;
  int integer() const;
  bool boolean() const;
  std::string string() const;     // a scalar
  std::vector<double> numbers(int expected_size = -1) const;  // a list (of the size, when given)
  std::vector<std::string> strings() const;
  Vector3 vector3() const;
  Vector4 rgba() const;
  /// {position: [x,y,z], quaternion: [x,y,z,w] | rpy: [r,p,y]}; quaternion must be unit.
  SE3 pose() const;
  /// [x, y, z, w], unit to 1e-6.
  Quaternion unitQuaternion() const;

  /// The printable scalar value ("'durration'") or the node kind.
  std::string valueText() const;
  [[noreturn]] void fail(const std::string& message) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

/// yaml-cpp keeps the first of two equal keys in a map and drops the other
/// without a word: this walks the whole document and fails on any repeated
/// key, naming both lines.
void rejectDuplicateKeys(const YAML::Node& node, const std::string& file, const std::string& path = "");

}  // namespace loopsim::scene_yaml
