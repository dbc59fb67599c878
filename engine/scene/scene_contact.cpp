// The contact part of a scene file: ground, obstacles, the free bodies' shapes,
// the models' own collision elements, exclusions and the contact solver ->
// Scene::geometry, contact_solver, contact_settings.
#include <cmath>
#include <numbers>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/solvers/solver.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/rigid_shapes.hpp>
#include <loopsim/scene/scene_parsing.hpp>

namespace loopsim::scene_yaml {

namespace {

double frictionOf(const YamlValue& entry, double fallback) {
  return entry.has("friction") ? entry["friction"].nonNegativeNumber() : fallback;
}

// A free body's or an obstacle's shape as collision geometry (sizes as RigidShape's).
Geometry geometryOf(const std::string& name, int body, const SE3& placement, const RigidShape& shape) {
  switch (shape.shape) {
    case VisualGeometry::Shape::Sphere: return Geometry::sphere(name, body, placement, shape.size.x());
    case VisualGeometry::Shape::Cylinder:
      return Geometry::cylinder(name, body, placement, shape.size.x(), shape.size.y());
    case VisualGeometry::Shape::Capsule:
      return Geometry::capsule(name, body, placement, shape.size.x(), shape.size.y());
    default: return Geometry::box(name, body, placement, shape.size);
  }
}

// A model file's collision element (URDF <collision>, MJCF geom) as detection
// geometry; errors name the model file and the element.
Geometry geometryOf(const CollisionElement& e) {
  auto refuse = [&](const std::string& message) { throw ModelError(e.file, e.element, message); };
  Geometry g;
  switch (e.shape) {
    case CollisionElement::Shape::Sphere: g = Geometry::sphere(e.name, e.body, e.placement, e.size.x()); break;
    case CollisionElement::Shape::Box: g = Geometry::box(e.name, e.body, e.placement, e.size); break;
    case CollisionElement::Shape::Cylinder:
      g = Geometry::cylinder(e.name, e.body, e.placement, e.size.x(), e.size.y());
      break;
    case CollisionElement::Shape::Capsule:
      g = Geometry::capsule(e.name, e.body, e.placement, e.size.x(), e.size.y());
      break;
    case CollisionElement::Shape::Mesh:
      if (e.vertices.empty()) refuse("collision mesh '" + e.mesh_file + "' cannot be read: " + e.mesh_problem);
      g = Geometry::convex(e.name, e.body, e.placement, e.vertices);
      break;
    case CollisionElement::Shape::Plane: {
      if (e.body != 0) refuse("a plane collides only on the world (a static half-space)");
      const Vector3 n = e.placement.R.col(2);
      g = Geometry::halfspace(e.name, n, n.dot(e.placement.t));
      break;
    }
  }
  if (!std::isnan(e.friction)) g.friction = e.friction;
  g.contype = e.contype;
  g.conaffinity = e.conaffinity;
  return g;
}

// ground: {height, normal | tilt, friction}. tilt (degrees) turns the plane about
// world y, so that it descends along +x.
Geometry parseGround(const YamlValue& ground) {
  ground.requireMap({"height", "normal", "tilt", "friction"});
  if (ground.has("normal") && ground.has("tilt")) ground.fail("give 'normal' or 'tilt', not both");
  Vector3 normal = Vector3::UnitZ();
  if (ground.has("normal")) {
    normal = ground["normal"].vector3();
    if (!(normal.norm() > 1e-12)) ground["normal"].fail("the normal must not be zero");
    normal.normalize();
  }
  if (ground.has("tilt")) {
    const double tilt = ground["tilt"].number();
    if (!(std::abs(tilt) < 90.0)) ground["tilt"].fail("the tilt must be within (-90, 90) degrees, got " +
                                                      ground["tilt"].valueText());
    const double angle = tilt * std::numbers::pi / 180.0;
    normal = Vector3(std::sin(angle), 0.0, std::cos(angle));
  }
  const double height = ground.has("height") ? ground["height"].number() : 0.0;
  // The plane passes through (0, 0, height).
  Geometry g = Geometry::halfspace("ground", normal, normal.z() * height);
  g.friction = frictionOf(ground, 1.0);
  return g;
}

// A ground the GUI's level floor at z = 0 does not show (tilted or raised): a
// 4 m by 2 m slab, 2 cm thick, its top face on the plane (small enough that the
// camera, which frames every visual, still shows the bodies on it).
VisualGeometry groundVisual(const Geometry& ground) {
  RigidShape slab;
  slab.shape = VisualGeometry::Shape::Box;
  slab.size = Vector3(4.0, 2.0, 0.02);
  slab.mass = 1.0;
  slab.rgba = Vector4(0.55, 0.6, 0.65, 1.0);
  const Vector3 n = ground.normal.normalized();
  const Matrix3 R = Eigen::Quaterniond::FromTwoVectors(Vector3::UnitZ(), n).toRotationMatrix();
  const Vector3 on_plane = n * ground.offset;  // the point of the plane nearest the origin
  return shapeVisual(slab, "ground", 0, SE3(R, on_plane - 0.01 * n));
}

}  // namespace

void parseContact(const YamlValue& doc, Model& model, Scene& scene) {
  auto geometry = std::make_shared<GeometryModel>(model, doc.file());
  // A ModelError of the geometry names the element; the scene file and the YAML place go with it.
  auto add = [&](const YamlValue& at, Geometry g) {
    try {
      geometry->addGeometry(std::move(g));
    } catch (const ModelError& e) {
      at.fail(e.element() + ": " + e.message());
    }
  };
  bool model_collisions = true;  // the model files' collision elements
  if (doc.has("contact")) {
    const YamlValue c = doc["contact"];
    c.requireMap({"solver", "tolerance", "max_iterations", "margin", "model_collisions", "factorization"});
    if (c.has("model_collisions")) model_collisions = c["model_collisions"].boolean();
    if (c.has("solver")) {
      const std::string name = c["solver"].string();
      if (!parseContactSolver(name, scene.contact_solver)) {
        c["solver"].fail("unknown contact solver '" + name + "'" + didYouMean(name, {"admm", "pgs"}) +
                         "; expected admm or pgs");
      }
    }
    if (c.has("factorization")) {
      const std::string name = c["factorization"].string();
      if (name == "dense") {
        scene.contact_factorization = StepFactorization::dense;
      } else if (name == "ltl") {
        scene.contact_factorization = StepFactorization::ltl;
      } else if (name != "auto") {
        c["factorization"].fail("unknown factorization '" + name + "'" + didYouMean(name, {"auto", "dense", "ltl"}) +
                                "; expected auto, dense or ltl");
      }
    }
    if (c.has("tolerance")) {
      scene.contact_settings.tolerance = c["tolerance"].positiveNumber();
      if (scene.contact_settings.tolerance > kMaxResidualTolerance) {
        c["tolerance"].fail("must be at most " + numberText(kMaxResidualTolerance) + ", got " +
                            c["tolerance"].valueText() + " (a residual tolerance this large stops every contact "
                            "solve at once)");
      }
    }
    if (c.has("max_iterations")) {
      scene.contact_settings.max_iterations = c["max_iterations"].integer();
      if (scene.contact_settings.max_iterations < 1) c["max_iterations"].fail("must be >= 1");
    }
    if (c.has("margin")) {
      CollisionSettings settings = geometry->settings();
      settings.margin = c["margin"].nonNegativeNumber();
      geometry->setSettings(settings);
    }
  }
  if (doc.has("ground")) {
    const Geometry ground = parseGround(doc["ground"]);
    add(doc["ground"], ground);
    if (ground.normal.z() < 1.0 - 1e-12 || std::abs(ground.offset) > 1e-12) {
      model.visuals.push_back(groundVisual(ground));
    }
  }
  if (doc.has("obstacles")) {
    const YamlValue list = doc["obstacles"];
    list.requireSequence();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YamlValue entry = list.at(i);
      entry.requireMap({"name", "shape", "size", "pose", "normal", "offset", "friction", "rgba"});
      if (!entry.has("name")) entry.fail("'name' is required");
      const std::string name = entry["name"].string();
      Geometry g;
      if (entry.has("shape") && entry["shape"].string() == "plane") {
        // A static half-space n·x <= offset (MuJoCo's plane: it collides on one side).
        if (!entry.has("normal")) entry.fail("a plane needs 'normal'");
        g = Geometry::halfspace(name, entry["normal"].vector3(), entry.has("offset") ? entry["offset"].number() : 0.0);
      } else {
        RigidShape shape;
        {
          // The obstacle is static: parseShape's mass is not asked for.
          YAML::Node copy = YAML::Clone(entry.node());
          copy["mass"] = 1.0;
          shape = parseShape(YamlValue(copy, entry.file(), entry.path()));
        }
        const SE3 pose = entry.has("pose") ? entry["pose"].pose() : SE3::Identity();
        g = geometryOf(name, 0, pose, shape);
        if (entry.has("rgba")) shape.rgba = entry["rgba"].rgba();
        model.visuals.push_back(shapeVisual(shape, name, 0, pose));
      }
      g.friction = frictionOf(entry, 1.0);
      add(entry, std::move(g));
    }
  }
  if (doc.has("bodies")) {
    const YamlValue list = doc["bodies"];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YamlValue entry = list.at(i);
      if (entry.has("collide") && !entry["collide"].boolean()) continue;
      const std::string name = entry["name"].string();
      Geometry g = geometryOf(name, bodyByName(entry["name"], model, name), SE3::Identity(), parseShape(entry));
      g.friction = frictionOf(entry, 1.0);
      add(entry, std::move(g));
    }
  }
  if (model_collisions) {
    for (const CollisionElement& element : model.collisions) {
      try {
        geometry->addGeometry(geometryOf(element));
      } catch (const ModelError& e) {
        if (e.file() == element.file) throw;
        throw ModelError(element.file, element.element, e.message());  // the model file's element, not the scene's
      }
    }
    for (const auto& [a, b] : model.collision_exclusions) geometry->excludeBodies(a, b);
  }
  if (doc.has("exclude")) {
    const YamlValue list = doc["exclude"];
    list.requireSequence();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YamlValue pair = list.at(i);
      const std::vector<std::string> names = pair.strings();
      if (names.size() != 2) pair.fail("expected two body names, got " + std::to_string(names.size()));
      try {
        geometry->excludeBodies(names[0], names[1]);
      } catch (const ModelError& e) {
        pair.fail(e.message());
      }
    }
  }
  // Only a geometry that can touch another makes the step detect contacts.
  for (int a = 0; a < geometry->ngeometries(); ++a) {
    for (int b = a + 1; b < geometry->ngeometries(); ++b) {
      if (geometry->canCollide(a, b)) {
        scene.geometry = std::move(geometry);
        return;
      }
    }
  }
}

}  // namespace loopsim::scene_yaml
