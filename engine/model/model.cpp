#include <loopsim/model/model.hpp>

#include <algorithm>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {
int indexOf(const std::vector<std::string>& names, const std::string& name, int first) {
  for (int i = first; i < static_cast<int>(names.size()); ++i) {
    if (names[i] == name) return i;
  }
  return -1;
}
}  // namespace

int Model::bodyId(const std::string& name) const { return indexOf(body_names, name, 0); }
int Model::jointId(const std::string& name) const { return indexOf(joint_names, name, 1); }

int Model::frameId(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(frames.size()); ++i) {
    if (frames[i].name == name) return i;
  }
  return -1;
}

int Model::existingFrame(const std::string& name) const {
  const int id = frameId(name);
  if (id < 0) throw ModelError(source_file, "frame '" + name + "'", "no such frame in model '" + this->name + "'");
  return id;
}

double Model::totalMass() const {
  double m = 0.0;
  for (int i = 1; i < nbodies(); ++i) m += body_inertias[i].mass;
  return m;
}

int Model::treeDepth() const {
  int d = 0;
  for (int i = 1; i < nbodies(); ++i) d = std::max(d, depth[i]);
  return d;
}

std::optional<CollisionElement::Shape> collisionShapeOf(VisualGeometry::Shape shape) {
  switch (shape) {
    case VisualGeometry::Shape::Box: return CollisionElement::Shape::Box;
    case VisualGeometry::Shape::Sphere: return CollisionElement::Shape::Sphere;
    case VisualGeometry::Shape::Cylinder: return CollisionElement::Shape::Cylinder;
    case VisualGeometry::Shape::Capsule: return CollisionElement::Shape::Capsule;
    case VisualGeometry::Shape::Mesh: return CollisionElement::Shape::Mesh;
    case VisualGeometry::Shape::Ellipsoid: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace loopsim
