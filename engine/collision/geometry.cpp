#include <loopsim/collision/geometry.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

std::string formatValue(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string formatVector(const Vector3& v) {
  std::ostringstream out;
  out << "(" << v.x() << ", " << v.y() << ", " << v.z() << ")";
  return out.str();
}

bool positiveFinite(double x) { return std::isfinite(x) && x > 0.0; }

std::pair<int, int> ordered(int a, int b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }

}  // namespace

const char* geometryShapeName(GeometryShape shape) {
  switch (shape) {
    case GeometryShape::sphere: return "sphere";
    case GeometryShape::box: return "box";
    case GeometryShape::cylinder: return "cylinder";
    case GeometryShape::capsule: return "capsule";
    case GeometryShape::halfspace: return "halfspace";
    case GeometryShape::convex: return "convex";
  }
  return "unknown";
}

Geometry Geometry::sphere(std::string name, int body, const SE3& placement, double radius) {
  Geometry g;
  g.name = std::move(name);
  g.body = body;
  g.placement = placement;
  g.shape = GeometryShape::sphere;
  g.size = Vector3(radius, 0.0, 0.0);
  return g;
}

Geometry Geometry::box(std::string name, int body, const SE3& placement, const Vector3& full_size) {
  Geometry g;
  g.name = std::move(name);
  g.body = body;
  g.placement = placement;
  g.shape = GeometryShape::box;
  g.size = full_size;
  return g;
}

Geometry Geometry::cylinder(std::string name, int body, const SE3& placement, double radius, double length) {
  Geometry g;
  g.name = std::move(name);
  g.body = body;
  g.placement = placement;
  g.shape = GeometryShape::cylinder;
  g.size = Vector3(radius, length, 0.0);
  return g;
}

Geometry Geometry::capsule(std::string name, int body, const SE3& placement, double radius, double length) {
  Geometry g = cylinder(std::move(name), body, placement, radius, length);
  g.shape = GeometryShape::capsule;
  return g;
}

Geometry Geometry::halfspace(std::string name, const Vector3& normal, double offset) {
  Geometry g;
  g.name = std::move(name);
  g.body = 0;
  g.shape = GeometryShape::halfspace;
  g.normal = normal;
  g.offset = offset;
  return g;
}

Geometry Geometry::convex(std::string name, int body, const SE3& placement, std::vector<Vector3> vertices) {
  Geometry g;
  g.name = std::move(name);
  g.body = body;
  g.placement = placement;
  g.shape = GeometryShape::convex;
  g.vertices = std::move(vertices);
  return g;
}

GeometryModel::GeometryModel(const Model& model, std::string source_file)
    : source_file_(std::move(source_file)), parent_(model.parent), body_names_(model.body_names) {}

int GeometryModel::addGeometry(Geometry g) {
  const std::string element = "geometry '" + g.name + "'";
  auto refuse = [&](const std::string& message) { throw ModelError(source_file_, element, message); };
  if (g.name.empty()) throw ModelError(source_file_, "geometry", "a geometry needs a name");
  if (geometryId(g.name) >= 0) refuse("a geometry of this name exists already");
  if (g.body < 0 || g.body >= nbodies()) {
    refuse("body " + std::to_string(g.body) + " does not exist (the model has " + std::to_string(nbodies()) +
           " bodies, 0 = the world)");
  }
  const std::string shape = geometryShapeName(g.shape);
  auto requireSize = [&](double value, const char* what) {
    if (!positiveFinite(value)) refuse(shape + " " + what + " must be positive and finite, got " + formatValue(value));
  };
  switch (g.shape) {
    case GeometryShape::sphere:
      requireSize(g.size.x(), "radius");
      g.size.y() = g.size.z() = 0.0;
      break;
    case GeometryShape::box:
      if (!(positiveFinite(g.size.x()) && positiveFinite(g.size.y()) && positiveFinite(g.size.z()))) {
        refuse("box size (full extents) must be positive and finite, got " + formatVector(g.size));
      }
      break;
    case GeometryShape::cylinder:
    case GeometryShape::capsule:
      requireSize(g.size.x(), "radius");
      requireSize(g.size.y(), "length");
      g.size.z() = 0.0;
      break;
    case GeometryShape::halfspace: {
      if (g.body != 0) refuse("a halfspace belongs to the world (body 0), got body " + std::to_string(g.body));
      const double norm = g.normal.norm();
      if (!positiveFinite(norm) || !g.normal.allFinite()) {
        refuse("halfspace normal must be finite and nonzero, got " + formatVector(g.normal));
      }
      if (!std::isfinite(g.offset)) refuse("halfspace offset must be finite, got " + formatValue(g.offset));
      // n·x <= offset with n scaled to unit length: the offset scales with it.
      g.normal /= norm;
      g.offset /= norm;
      g.placement = SE3::Identity();
      break;
    }
    case GeometryShape::convex:
      if (g.vertices.size() < 4) {
        refuse("a convex geometry needs at least 4 vertices, got " + std::to_string(g.vertices.size()));
      }
      for (std::size_t i = 0; i < g.vertices.size(); ++i) {
        if (!g.vertices[i].allFinite()) {
          refuse("convex vertex " + std::to_string(i) + " is not finite: " + formatVector(g.vertices[i]));
        }
      }
      break;
  }
  if (!(g.friction >= 0.0)) refuse("friction must be >= 0, got " + formatValue(g.friction));
  const Matrix3& R = g.placement.R;
  if (!R.allFinite() || !g.placement.t.allFinite() || !(R.transpose() * R).isApprox(Matrix3::Identity(), 1e-9) ||
      R.determinant() < 0.0) {
    refuse("placement must be a finite rigid transform (a rotation and a translation)");
  }
  geometries_.push_back(std::move(g));
  return ngeometries() - 1;
}

int GeometryModel::existingBody(const std::string& name, const std::string& element) const {
  const auto it = std::find(body_names_.begin(), body_names_.end(), name);
  if (it == body_names_.end()) throw ModelError(source_file_, element, "no body named '" + name + "'");
  return static_cast<int>(it - body_names_.begin());
}

int GeometryModel::existingGeometry(const std::string& name, const std::string& element) const {
  const int id = geometryId(name);
  if (id < 0) throw ModelError(source_file_, element, "no geometry named '" + name + "'");
  return id;
}

void GeometryModel::excludeBodies(const std::string& body_a, const std::string& body_b) {
  const std::string element = "exclusion '" + body_a + "' - '" + body_b + "'";
  excludeBodies(existingBody(body_a, element), existingBody(body_b, element));
}

void GeometryModel::excludeBodies(int body_a, int body_b) {
  for (const int body : {body_a, body_b}) {
    if (body < 0 || body >= nbodies()) {
      throw ModelError(source_file_, "exclusion " + std::to_string(body_a) + " - " + std::to_string(body_b),
                       "body " + std::to_string(body) + " does not exist (the model has " + std::to_string(nbodies()) +
                           " bodies)");
    }
  }
  const auto pair = ordered(body_a, body_b);
  if (std::find(excluded_bodies_.begin(), excluded_bodies_.end(), pair) == excluded_bodies_.end()) {
    excluded_bodies_.push_back(pair);
  }
}

void GeometryModel::setPairFriction(const std::string& geometry_a, const std::string& geometry_b, double mu) {
  const std::string element = "pair friction '" + geometry_a + "' - '" + geometry_b + "'";
  const auto [a, b] = ordered(existingGeometry(geometry_a, element), existingGeometry(geometry_b, element));
  if (!(mu >= 0.0)) throw ModelError(source_file_, element, "friction must be >= 0, got " + formatValue(mu));
  for (PairFriction& p : pair_friction_) {
    if (p.a == a && p.b == b) {
      p.mu = mu;
      return;
    }
  }
  pair_friction_.push_back({a, b, mu});
}

void GeometryModel::setSettings(const CollisionSettings& settings) {
  auto check = [&](double value, const char* name) {
    if (!(std::isfinite(value) && value >= 0.0)) {
      throw ModelError(source_file_, std::string("collision ") + name,
                       std::string(name) + " must be >= 0 and finite, got " + formatValue(value));
    }
  };
  check(settings.margin, "margin");
  check(settings.persistence_tolerance, "persistence_tolerance");
  settings_ = settings;
}

int GeometryModel::geometryId(const std::string& name) const {
  for (int i = 0; i < ngeometries(); ++i) {
    if (geometries_[static_cast<std::size_t>(i)].name == name) return i;
  }
  return -1;
}

bool GeometryModel::canCollide(int geometry_a, int geometry_b) const {
  if (geometry_a == geometry_b) return false;
  const Geometry& a = geometry(geometry_a);
  const Geometry& b = geometry(geometry_b);
  if (a.body == b.body) return false;
  if (!((a.contype & b.conaffinity) || (b.contype & a.conaffinity))) return false;
  if (parent_child_filter_ && a.body != 0 && b.body != 0) {
    if (parent_[static_cast<std::size_t>(a.body)] == b.body || parent_[static_cast<std::size_t>(b.body)] == a.body) {
      return false;
    }
  }
  const auto pair = ordered(a.body, b.body);
  return std::find(excluded_bodies_.begin(), excluded_bodies_.end(), pair) == excluded_bodies_.end();
}

double GeometryModel::pairFriction(int geometry_a, int geometry_b) const {
  const auto [a, b] = ordered(geometry_a, geometry_b);
  for (const PairFriction& p : pair_friction_) {
    if (p.a == a && p.b == b) return p.mu;
  }
  return std::max(geometry(a).friction, geometry(b).friction);
}

}  // namespace loopsim
