#include "render/gl/shader.hpp"

#include <GL/gl.h>
#include <GL/glext.h>

#include <stdexcept>
#include <vector>

namespace loopsim::render {

namespace {

unsigned compile(const std::string& program_name, GLenum type, const char* source) {
  const unsigned shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok == GL_FALSE) {
    GLint length = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(length) + 1, '\0');
    glGetShaderInfoLog(shader, length, nullptr, log.data());
    glDeleteShader(shader);
    throw std::runtime_error("shader '" + program_name + "' (" + (type == GL_VERTEX_SHADER ? "vertex" : "fragment") +
                             ") does not compile: " + log.data());
  }
  return shader;
}

}  // namespace

ShaderProgram::ShaderProgram(const char* name, const char* vertex_source, const char* fragment_source) : name_(name) {
  const unsigned vs = compile(name_, GL_VERTEX_SHADER, vertex_source);
  const unsigned fs = compile(name_, GL_FRAGMENT_SHADER, fragment_source);
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (ok == GL_FALSE) {
    GLint length = 0;
    glGetProgramiv(program_, GL_INFO_LOG_LENGTH, &length);
    std::vector<char> log(static_cast<std::size_t>(length) + 1, '\0');
    glGetProgramInfoLog(program_, length, nullptr, log.data());
    glDeleteProgram(program_);
    throw std::runtime_error("shader '" + name_ + "' does not link: " + log.data());
  }
}

ShaderProgram::~ShaderProgram() { glDeleteProgram(program_); }

void ShaderProgram::use() const { glUseProgram(program_); }
int ShaderProgram::uniform(const char* name) const {
  const auto found = locations_.find(name);
  if (found != locations_.end()) return found->second;
  const int location = glGetUniformLocation(program_, name);
  locations_.emplace(name, location);
  return location;
}
void ShaderProgram::set(const char* name, const Eigen::Matrix4f& m) const {
  glUniformMatrix4fv(uniform(name), 1, GL_FALSE, m.data());
}
void ShaderProgram::set(const char* name, const Eigen::Matrix3f& m) const {
  glUniformMatrix3fv(uniform(name), 1, GL_FALSE, m.data());
}
void ShaderProgram::set(const char* name, const Eigen::Vector4f& v) const { glUniform4fv(uniform(name), 1, v.data()); }
void ShaderProgram::set(const char* name, const Eigen::Vector3f& v) const { glUniform3fv(uniform(name), 1, v.data()); }
void ShaderProgram::set(const char* name, float x) const { glUniform1f(uniform(name), x); }

}  // namespace loopsim::render
