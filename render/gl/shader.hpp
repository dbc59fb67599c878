#pragma once
// A linked GLSL program; compile or link errors throw with the driver's log.
#include <string>
#include <unordered_map>

#include <Eigen/Core>

namespace loopsim::render {

class ShaderProgram {
 public:
  ShaderProgram(const char* name, const char* vertex_source, const char* fragment_source);
  ~ShaderProgram();
  ShaderProgram(const ShaderProgram&) = delete;
  ShaderProgram& operator=(const ShaderProgram&) = delete;

  void use() const;
  /// Uniform location. `name` must be a string literal: locations are cached by its address.
  int uniform(const char* name) const;
  void set(const char* name, const Eigen::Matrix4f& m) const;
  void set(const char* name, const Eigen::Matrix3f& m) const;
  void set(const char* name, const Eigen::Vector4f& v) const;
  void set(const char* name, const Eigen::Vector3f& v) const;
  void set(const char* name, float x) const;

 private:
  unsigned program_ = 0;
  std::string name_;
  mutable std::unordered_map<const char*, int> locations_;  // by the literal's address: no string work per draw
};

}  // namespace loopsim::render
