#pragma once
// A loaded scene: one multibody forest under the world (every model and free
// body of the YAML file merged, names prefixed), its constraints, initial
// state, controller and simulation settings. Produced by loadScene
// (scene_loader.hpp); consumed by Simulation (sim/simulation.hpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <loopsim/collision/geometry.hpp>
#include <loopsim/constraints/constraint.hpp>
#include <loopsim/contact/joint_limits.hpp>
#include <loopsim/contact/unilateral_step.hpp>
#include <loopsim/model/model.hpp>
#include <loopsim/solvers/selection/solver_check.hpp>
#include <loopsim/solvers/solver.hpp>

namespace loopsim {

struct SinusoidDrive {
  int joint = 0;  // one-dof joint index
  double amplitude = 0.0, frequency_hz = 0.0, phase = 0.0, offset = 0.0;
};

struct ControllerSpec {
  enum class Kind { None, PdHold, GravityCompensation, Sinusoid };
  Kind kind = Kind::None;
  double kp = 0.0, kd = 0.0;           // PD gains (PdHold; Sinusoid tracks its reference with them)
  std::vector<SinusoidDrive> drives;   // Sinusoid
  /// Hold (PdHold, Sinusoid): adds the least-effort torques that hold the
  /// initial pose still against gravity and springs, the constraints carrying
  /// the rest (control/holding_forces.hpp); computed once at start.
  enum class Feedforward { None, Hold };
  Feedforward feedforward = Feedforward::None;
};

/// How joint damping and the controller's derivative gains are integrated
/// (scene key `integrator: {damping: implicit | explicit}`).
///   implicit: (M + dt·D) v̇ = τ − D v − h + Jᵀλ with D = diag(joint damping +
///             derivative gains on the dofs the controller drives), as MuJoCo's
///             Euler integrator; stable for any D at any dt.
///   explicit: M v̇ = τ − D v − h + Jᵀλ (stable only while dt·D ≪ M).
enum class DampingIntegration { Implicit, Explicit };

struct Scene {
  std::string name;
  std::string description;
  std::string source_file;  // path of the YAML file ("" when built in code)
  std::string text;         // the YAML text as read (records embed it)
  std::vector<std::string> model_files;  // resolved URDF/MJCF files used (records hash them)

  std::shared_ptr<const Model> model;
  std::vector<Constraint> constraints;
  VectorX q0, v0;
  std::vector<int> held_joints;      // kept fixed by the consistent-start projection
  std::vector<int> actuated_joints;  // joints the controller drives (τ = 0 elsewhere)
  ControllerSpec controller;

  double dt = 1e-3;
  double duration = 10.0;
  double time_constant = 0.1;  // Baumgarte T (paper 000 §IX-A)
  DampingIntegration damping = DampingIntegration::Implicit;
  bool projection = false;     // post-step projection onto the constraint manifold
  bool redundant = false;      // the constraint set is knowingly rank-deficient
  JointLimitSettings joint_limits;  // position limits of the model's joints as unilateral rows
  /// The collision geometry (ground, obstacles, free bodies' shapes); null when the
  /// scene has none, and then no step detects contacts.
  std::shared_ptr<const GeometryModel> geometry;
  ContactSolverKind contact_solver = ContactSolverKind::admm;  // scene key contact.solver
  ContactSolverSettings contact_settings;
  /// Scene key contact.factorization: of M̃ in the contact step; unset = chosen by the tree.
  std::optional<StepFactorization> contact_factorization;
  std::string solver = "kkt";
  SolverSettings solver_settings;

  // Added by the scene loader (additive):
  std::vector<std::string> warnings;  // model loader findings and scene remarks, for the log

  /// What solver selection (solvers/selection/) needs of this scene; refers to
  /// the scene's members, so it lives no longer than the scene.
  SolverProblem solverProblem() const {
    return {*model, constraints, time_constant, redundant, solver_settings.independent_dofs, q0, source_file};
  }
};

}  // namespace loopsim
