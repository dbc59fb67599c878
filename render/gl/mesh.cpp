#include "render/gl/mesh.hpp"

#include <GL/gl.h>
#include <GL/glext.h>

#include <cmath>
#include <numbers>

namespace loopsim::render {

void MeshData::addVertex(const Eigen::Vector3f& p, const Eigen::Vector3f& n) {
  vertices.insert(vertices.end(), {p.x(), p.y(), p.z(), n.x(), n.y(), n.z()});
}

void MeshData::computeBounds() {
  if (vertices.empty()) return;
  min_corner = max_corner = Eigen::Vector3f(vertices[0], vertices[1], vertices[2]);
  for (std::size_t i = 0; i < vertices.size(); i += 6) {
    const Eigen::Vector3f p(vertices[i], vertices[i + 1], vertices[i + 2]);
    min_corner = min_corner.cwiseMin(p);
    max_corner = max_corner.cwiseMax(p);
  }
}

MeshData unitBox() {
  MeshData mesh;
  // One quad per face with its own normal (flat shading at the edges).
  for (int axis = 0; axis < 3; ++axis) {
    for (float sign : {-1.0f, 1.0f}) {
      Eigen::Vector3f n = Eigen::Vector3f::Zero();
      n[axis] = sign;
      const Eigen::Vector3f u = Eigen::Vector3f::Unit((axis + 1) % 3);
      const Eigen::Vector3f w = Eigen::Vector3f::Unit((axis + 2) % 3);
      const std::uint32_t base = mesh.vertexCount();
      for (auto [a, b] : {std::pair{-1.0f, -1.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {-1.0f, 1.0f}}) {
        mesh.addVertex(0.5f * (n + a * u + b * w), n);
      }
      // Counter-clockwise seen from outside.
      if (sign > 0) {
        mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
      } else {
        mesh.indices.insert(mesh.indices.end(), {base, base + 2, base + 1, base, base + 3, base + 2});
      }
    }
  }
  mesh.computeBounds();
  mesh.closed = true;
  return mesh;
}

namespace {

// A unit sphere's band from the +z pole down to polar angle `theta_end`
// (π: the whole sphere, π/2: the upper hemisphere), normals outward.
MeshData unitSphereCap(int slices, int stacks, float theta_end) {
  MeshData mesh;
  constexpr float pi = std::numbers::pi_v<float>;
  for (int i = 0; i <= stacks; ++i) {
    const float theta = theta_end * static_cast<float>(i) / static_cast<float>(stacks);
    for (int j = 0; j <= slices; ++j) {
      const float phi = 2.0f * pi * static_cast<float>(j) / static_cast<float>(slices);
      const Eigen::Vector3f p(std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta));
      mesh.addVertex(p, p);
    }
  }
  const auto at = [&](int i, int j) { return static_cast<std::uint32_t>(i * (slices + 1) + j); };
  for (int i = 0; i < stacks; ++i) {
    for (int j = 0; j < slices; ++j) {
      mesh.indices.insert(mesh.indices.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
  }
  mesh.computeBounds();
  mesh.closed = true;
  return mesh;
}

}  // namespace

MeshData unitSphere(int slices, int stacks) { return unitSphereCap(slices, stacks, std::numbers::pi_v<float>); }

MeshData unitHemisphere(int slices, int stacks) {
  // From the pole to the rim; open there, but only a capsule's cap, whose rim the cylinder's cap closes.
  return unitSphereCap(slices, stacks, 0.5f * std::numbers::pi_v<float>);
}

MeshData unitCylinder(int slices) {
  MeshData mesh;
  constexpr float pi = std::numbers::pi_v<float>;
  // Side.
  for (int j = 0; j <= slices; ++j) {
    const float phi = 2.0f * pi * static_cast<float>(j) / static_cast<float>(slices);
    const Eigen::Vector3f n(std::cos(phi), std::sin(phi), 0.0f);
    mesh.addVertex(n + Eigen::Vector3f(0, 0, -0.5f), n);
    mesh.addVertex(n + Eigen::Vector3f(0, 0, 0.5f), n);
  }
  for (int j = 0; j < slices; ++j) {
    const auto b = static_cast<std::uint32_t>(2 * j);
    mesh.indices.insert(mesh.indices.end(), {b, b + 2, b + 3, b, b + 3, b + 1});
  }
  // Caps.
  for (float sign : {-1.0f, 1.0f}) {
    const Eigen::Vector3f n(0, 0, sign);
    const std::uint32_t center = mesh.vertexCount();
    mesh.addVertex(0.5f * n, n);
    for (int j = 0; j <= slices; ++j) {
      const float phi = 2.0f * pi * static_cast<float>(j) / static_cast<float>(slices);
      mesh.addVertex(Eigen::Vector3f(std::cos(phi), std::sin(phi), 0.5f * sign), n);
    }
    for (int j = 0; j < slices; ++j) {
      const auto a = static_cast<std::uint32_t>(center + 1 + j);
      if (sign > 0) mesh.indices.insert(mesh.indices.end(), {center, a, a + 1});
      else mesh.indices.insert(mesh.indices.end(), {center, a + 1, a});
    }
  }
  mesh.computeBounds();
  mesh.closed = true;
  return mesh;
}

MeshData unitCone(int slices) {
  MeshData mesh;
  constexpr float pi = std::numbers::pi_v<float>;
  const float slope = 1.0f / std::sqrt(2.0f);
  for (int j = 0; j < slices; ++j) {
    const float phi0 = 2.0f * pi * static_cast<float>(j) / static_cast<float>(slices);
    const float phi1 = 2.0f * pi * static_cast<float>(j + 1) / static_cast<float>(slices);
    const float mid = 0.5f * (phi0 + phi1);
    const std::uint32_t b = mesh.vertexCount();
    mesh.addVertex({std::cos(phi0), std::sin(phi0), 0}, {slope * std::cos(phi0), slope * std::sin(phi0), slope});
    mesh.addVertex({std::cos(phi1), std::sin(phi1), 0}, {slope * std::cos(phi1), slope * std::sin(phi1), slope});
    mesh.addVertex({0, 0, 1}, {slope * std::cos(mid), slope * std::sin(mid), slope});
    mesh.indices.insert(mesh.indices.end(), {b, b + 1, b + 2});
    const std::uint32_t c = mesh.vertexCount();
    mesh.addVertex({0, 0, 0}, {0, 0, -1});
    mesh.addVertex({std::cos(phi0), std::sin(phi0), 0}, {0, 0, -1});
    mesh.addVertex({std::cos(phi1), std::sin(phi1), 0}, {0, 0, -1});
    mesh.indices.insert(mesh.indices.end(), {c, c + 2, c + 1});
  }
  mesh.computeBounds();
  mesh.closed = true;
  return mesh;
}

GpuMesh::GpuMesh(const MeshData& data)
    : index_count_(static_cast<int>(data.indices.size())),
      closed_(data.closed),
      min_corner_(data.min_corner),
      max_corner_(data.max_corner) {
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glGenBuffers(1, &ebo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.vertices.size() * sizeof(float)), data.vertices.data(),
               GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.indices.size() * sizeof(std::uint32_t)),
               data.indices.data(), GL_STATIC_DRAW);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
  glEnableVertexAttribArray(1);
  glBindVertexArray(0);
}

GpuMesh::~GpuMesh() {
  glDeleteBuffers(1, &ebo_);
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void GpuMesh::drawInstanced(unsigned instance_buffer, int count) const {
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, instance_buffer);
  const GLsizei stride = kInstanceFloats * sizeof(float);
  const auto attribute = [stride](GLuint location, GLint size, int offset_floats) {
    glVertexAttribPointer(location, size, GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<void*>(static_cast<std::size_t>(offset_floats) * sizeof(float)));
    glEnableVertexAttribArray(location);
    glVertexAttribDivisor(location, 1);
  };
  for (GLuint column = 0; column < 4; ++column) attribute(2 + column, 4, 4 * static_cast<int>(column));  // model
  for (GLuint column = 0; column < 3; ++column) attribute(6 + column, 3, 16 + 3 * static_cast<int>(column));  // normal matrix
  attribute(9, 4, 25);  // colour
  glDrawElementsInstanced(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr, count);
  for (GLuint location = 2; location <= 9; ++location) glDisableVertexAttribArray(location);  // draw() reads none
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glBindVertexArray(0);
}

void GpuMesh::draw() const {
  glBindVertexArray(vao_);
  glDrawElements(GL_TRIANGLES, index_count_, GL_UNSIGNED_INT, nullptr);
  glBindVertexArray(0);
}

}  // namespace loopsim::render
