// Models, scenes and the solver registry.
#include "bindings.hpp"

#include <cmath>

#include <pybind11/eigen.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mjcf_loader.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

#include <memory>

namespace loopsim::python {

namespace {

std::vector<std::string> frameNames(const Model& model) {
  std::vector<std::string> names;
  for (const Frame& f : model.frames) names.push_back(f.name);
  return names;
}

// A frame's placement in the world at q, as a 4x4 homogeneous matrix.
Eigen::Matrix4d framePlacementAt(const Model& model, const VectorX& q, const std::string& frame) {
  const int id = model.frameId(frame);
  if (id < 0) throw ModelError(model.source_file, "frame '" + frame + "'", "no such frame in model '" + model.name + "'");
  if (q.size() != model.nq) {
    throw py::value_error("q must have nq = " + std::to_string(model.nq) + " values, not " + std::to_string(q.size()));
  }
  for (int k = 0; k < q.size(); ++k) {
    if (!std::isfinite(q[k])) {
      throw py::value_error("q[" + std::to_string(k) + "] is " + (std::isnan(q[k]) ? "NaN" : "infinite") +
                            ": a placement needs a finite configuration");
    }
  }
  Data data(model);
  forwardKinematics(model, data, q);
  const SE3 oMf = framePlacement(model, data, id);
  Eigen::Matrix4d out = Eigen::Matrix4d::Identity();
  out.topLeftCorner<3, 3>() = oMf.R;
  out.topRightCorner<3, 1>() = oMf.t;
  return out;
}

std::shared_ptr<Model> loadModel(const std::filesystem::path& file, bool floating_base) {
  if (file.extension() == ".xml") return std::make_shared<Model>(loadMjcf(file).model);
  return std::make_shared<Model>(loadUrdf(file, UrdfOptions{.floating_base = floating_base}));
}

}  // namespace

void bindModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "Model", "An immutable multibody model (bodies in depth-first order; body 0 = world).")
      .def_readonly("name", &Model::name)
      .def_property_readonly("nq", [](const Model& model) { return model.nq; }, "Size of q.")
      .def_property_readonly("nv", [](const Model& model) { return model.nv; }, "Size of v, v̇ and τ.")
      .def_property_readonly("nbodies", &Model::nbodies, "Bodies, the world included.")
      .def_readonly("body_names", &Model::body_names)
      .def_readonly("joint_names", &Model::joint_names, "joint_names[i] moves body i ([0] is the world's).")
      .def_property_readonly("frame_names", &frameNames)
      .def_property_readonly("total_mass", &Model::totalMass, "kg")
      .def("frame_placement", &framePlacementAt, py::arg("q"), py::arg("frame"),
           "The named frame's placement in the world at configuration q: a 4x4 homogeneous matrix [R t; 0 1].")
      .def_property_readonly("gravity", [](const Model& model) { return Vector3(model.gravity); }, "m/s², world axes.");

  m.def("load_model", &loadModel, py::arg("file"), py::arg("floating_base") = false,
        "Loads a URDF, or an MJCF (.xml) model: the tree alone. floating_base (URDF): a floating root_joint under "
        "the root link. A URDF+ file with <loop> or <coupling> elements is refused (its tree alone is open) and an "
        "MJCF's equality constraints are not part of a Model: load_scene on a scene with the file as a model keeps "
        "both.");

  py::class_<Scene, std::shared_ptr<Scene>>(m, "Scene", "A scene file loaded: model, constraints, start state, controller, settings.")
      .def_readonly("name", &Scene::name)
      .def_readonly("source_file", &Scene::source_file)
      .def_property_readonly("model", [](const Scene& s) { return std::const_pointer_cast<Model>(s.model); })
      .def_readonly("q0", &Scene::q0, "Initial configuration (read-only).")
      .def_readonly("v0", &Scene::v0, "Initial velocity (read-only).")
      .def_readonly("dt", &Scene::dt)
      .def_readonly("duration", &Scene::duration)
      .def_readonly("solver", &Scene::solver, "The scene's solver name.")
      .def_readonly("time_constant", &Scene::time_constant, "Baumgarte time constant T (s); <= 0: off.")
      .def_property_readonly("constraint_names", [](const Scene& s) {
        std::vector<std::string> names;
        for (const Constraint& c : s.constraints) names.push_back(c.name);
        return names;
      });
  m.def("load_scene", [](const std::filesystem::path& file) { return std::make_shared<Scene>(loadScene(file)); },
        py::arg("file"), "Loads a scene YAML file (scenes/README.md).");

  m.def("solvers", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const SolverInfo& info : solverRegistry()) out.emplace_back(info.name, info.description);
    return out;
  }, "Every registered solver as (name, description), in registry order.");

  m.def("state_columns", [](const Scene& scene) {
    const Model& model = *scene.model;
    const ConstraintSet set(model, scene.constraints, scene.time_constant);
    py::dict columns;
    columns["q"] = configurationColumns(model);
    columns["v"] = velocityColumns(model, "v");
    columns["tau"] = velocityColumns(model, "tau");
    columns["vdot"] = velocityColumns(model, "vdot");
    columns["lambda"] = lambdaColumns(set);
    return columns;
  }, py::arg("scene"), "The CSV column names of q, v, tau, vdot and lambda (as in records and `loopsim eval`).");
}

}  // namespace loopsim::python
