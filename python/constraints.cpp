// Scenes built in code: a Scene from a Model, and weld / connect constraints
// on named frames closed where the mechanism stands (the C++ API's
// weldWhereItStands / connectWhereItStands, constraints/frame_constraints.hpp).
#include "bindings.hpp"

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/constraints/frame_constraints.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/state_evaluator.hpp>

#include <cmath>
#include <memory>
#include <optional>
#include <string>

namespace loopsim::python {

namespace {

Eigen::Matrix4d homogeneous(const SE3& m) {
  Eigen::Matrix4d out = Eigen::Matrix4d::Identity();
  out.topLeftCorner<3, 3>() = m.R;
  out.topRightCorner<3, 1>() = m.t;
  return out;
}

std::shared_ptr<Scene> makeScene(const std::shared_ptr<Model>& model, const std::optional<VectorX>& q0,
                                 const std::optional<VectorX>& v0, double dt, double time_constant, bool projection,
                                 const std::string& solver, const std::string& name) {
  auto scene = std::make_shared<Scene>();
  scene->name = name.empty() ? model->name : name;
  scene->model = model;
  scene->q0 = q0.value_or(neutral(*model));
  scene->v0 = v0.value_or(VectorX::Zero(model->nv));
  const std::string where = "make_scene";
  if (scene->q0.size() != model->nq || scene->v0.size() != model->nv) {
    throw ModelError("", where, "q0 needs nq = " + std::to_string(model->nq) + " values and v0 nv = " +
                                    std::to_string(model->nv) + "; got " + std::to_string(scene->q0.size()) +
                                    " and " + std::to_string(scene->v0.size()));
  }
  std::string joint = where + ": q0";
  if (const std::string message = nonUnitQuaternion(*model, scene->q0, joint); !message.empty()) {
    throw ModelError("", joint, message);
  }
  if (!(dt > 0.0) || !std::isfinite(dt)) throw ModelError("", where, "dt must be > 0, not " + std::to_string(dt));
  if (!(time_constant >= 0.0)) {
    throw ModelError("", where, "time_constant must be >= 0 (0: no Baumgarte), not " + std::to_string(time_constant));
  }
  scene->dt = dt;
  scene->time_constant = time_constant;
  scene->projection = projection;
  scene->solver = solver;
  requireSolver(scene->solverProblem(), solver);
  return scene;
}

// Adds `c` if the scene still loads with it (as a scene file's constraint
// would): valid for the model, a unique name, and runnable by the scene's
// solver (rank). The scene is unchanged when it throws.
Constraint addConstraint(Scene& scene, Constraint c) {
  std::vector<Constraint> constraints = scene.constraints;
  constraints.push_back(c);
  const ConstraintSet set(*scene.model, constraints, scene.time_constant);  // names, bodies
  Scene checked = scene;
  checked.constraints = std::move(constraints);
  requireSolver(checked.solverProblem(), scene.solver);
  scene.constraints = std::move(checked.constraints);
  return c;
}

VectorX configurationOrStart(const Scene& scene, const std::optional<VectorX>& q) { return q.value_or(scene.q0); }

}  // namespace

void bindConstraints(py::module_& m) {
  // The Scene class bindModel registered, extended here.
  const py::object scene_type = m.attr("Scene");
  auto scene = py::reinterpret_borrow<py::class_<Scene, std::shared_ptr<Scene>>>(scene_type);
  py::class_<Constraint>(m, "Constraint", R"(An equality constraint between frame A on body1 and frame B on body2 (0 = world).

lambda_ rows of a weld are the wrench [n; f] (6), of a connect the force f (3), that the
constraint applies to body1, expressed in frame A's axes about A's origin; body2
receives the opposite. M vdot + h = tau + J^T lambda.)")
      .def_readonly("name", &Constraint::name)
      .def_property_readonly("kind", [](const Constraint& c) { return std::string(constraintKindName(c.kind)); },
                             "weld | connect | revolute | coupling")
      .def_property_readonly("dimension", &Constraint::dimension, "Rows (weld 6: [wx wy wz vx vy vz]; connect 3).")
      .def_readonly("body1", &Constraint::body1)
      .def_readonly("body2", &Constraint::body2)
      .def_property_readonly("placement1", [](const Constraint& c) { return homogeneous(c.placement1); },
                             "Frame A in body1's frame, a 4x4 homogeneous matrix.")
      .def_property_readonly("placement2", [](const Constraint& c) { return homogeneous(c.placement2); },
                             "Frame B in body2's frame (the world frame when body2 is 0), 4x4.");

  m.def("make_scene", &makeScene, py::arg("model"), py::arg("q0") = std::nullopt, py::arg("v0") = std::nullopt,
        py::arg("dt") = 1e-3, py::arg("time_constant") = 0.1, py::arg("projection") = false, py::arg("solver") = "kkt", py::arg("name") = "",
        R"(A scene of `model` without constraints or controller (tau = 0): add constraints with
Scene.add_weld / Scene.add_connect, then Simulation(scene) or evaluate(scene, ...).

q0: the start configuration (default: the model's neutral one; quaternions [x y z w],
unit), v0 (default 0), dt (s), time_constant: Baumgarte T in s (0: off), projection:
project each step's state onto the constraints (scene key `projection`), solver: a
registered solver's name. Implicit joint damping, as a scene file's default.)");

  scene
      .def_property_readonly("constraints", [](const Scene& s) { return s.constraints; },
                             "The constraints, in lambda order (a copy).")
      .def("add_weld",
           [](Scene& s, const std::string& name, const std::string& frame1, const std::string& frame2,
              const std::optional<VectorX>& q) {
             return addConstraint(s, weldWhereItStands(*s.model, configurationOrStart(s, q), name, frame1, frame2));
           },
           py::arg("name"), py::arg("frame1"), py::arg("frame2") = "world", py::arg("q") = std::nullopt,
           R"(Welds frame1 to frame2 (default: the world) at their relative pose at q (default
q0): "weld this frame where it stands", as a scene file's weld without placement2.
Adds 6 lambda rows, the wrench [n; f] (spatial order [angular; linear]) that the
weld applies to frame1's body, in frame1's axes about its origin (frame2's body
receives the opposite; M vdot + h = tau + J^T lambda). Raises ModelError for an
unknown frame, frame1 on the world, both frames on one body, a duplicate name, or a
constraint set the scene's solver cannot run (e.g. rank-deficient). Returns the
Constraint added.)")
      .def("add_connect",
           [](Scene& s, const std::string& name, const std::string& frame1, const Vector3& point1,
              const std::string& frame2, const std::optional<VectorX>& q) {
             return addConstraint(s, connectWhereItStands(*s.model, configurationOrStart(s, q), name, frame1, point1,
                                                          frame2));
           },
           py::arg("name"), py::arg("frame1"), py::arg("point1") = Vector3::Zero(), py::arg("frame2") = "world",
           py::arg("q") = std::nullopt,
           R"(Connects (a ball joint) the point point1 of frame1 (in frame1's axes) to the point
of frame2 (default: the world) that coincides with it at q (default q0). Adds 3
lambda rows, the force f that it applies to frame1's body at point1, in frame1's
axes (frame2's body receives the opposite). Raises
ModelError as add_weld does. Returns the Constraint added.)");
}

}  // namespace loopsim::python
