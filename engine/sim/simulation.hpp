#pragma once
// The simulation loop (DESIGN.md data flow). One step:
//   τ_applied = controller(t, q, v),  τ = τ_applied + τ_passive (damping, springs)
//   v̇, λ = solver.solve(q, v, τ)                       (constrained forward dynamics, Baumgarte k)
//   v ← v + dt v̇,  q ← q ⊕ dt v                         (semi-implicit Euler, paper 001 eqs. 54-55)
//   optional: project q then v onto the constraint manifold (scene.projection)
//   stats: timings, violations φ and J v after the step, energy, divergence.
// The constructor projects the scene's initial state onto the manifold
// (consistent start). step() never allocates after its first call.
#include <chrono>
#include <memory>
#include <optional>

#include "constraints/constraint_data.hpp"
#include "constraints/projection.hpp"
#include "scene/scene.hpp"
#include "sim/controller.hpp"
#include "sim/divergence.hpp"
#include "sim/run_statistics.hpp"
#include "solvers/solver.hpp"

namespace loopsim {

struct SimulationOptions {
  bool consistent_start = true;        // project (q0, v0) at construction
  double violation_threshold = 1e-1;   // divergence when ‖φ‖∞ exceeds it (m or rad)
  int projection_iterations = 3;       // Gauss-Newton steps of the post-step projection
  std::size_t timing_samples = 0;      // kept for medians; 0 = duration / dt + 1 (capped at 1e6)
};

class Simulation {
 public:
  /// Builds the constraint set, the solver (scene.solver), the controller and
  /// the workspace; throws ModelError on a bad scene or an inconsistent start.
  explicit Simulation(const Scene& scene, const SimulationOptions& options = {});

  /// Advances one step of scene.dt. Returns false (and stops advancing) on divergence.
  bool step();
  /// Steps until `duration` of simulated time has passed or divergence; returns !diverged().
  bool run(double duration);

  double time() const { return time_; }
  long stepCount() const { return steps_; }
  const VectorX& q() const { return q_; }
  const VectorX& v() const { return v_; }
  const VectorX& vdot() const { return vdot_; }
  const VectorX& lambda() const { return lambda_; }
  const VectorX& appliedTorque() const { return tau_applied_; }
  /// φ and J v at the current state (evaluated after the last step).
  const VectorX& constraintError() const { return cdata_.phi; }
  const VectorX& constraintVelocityError() const { return cdata_.phidot; }

  const Scene& scene() const { return scene_; }
  const Model& model() const { return *scene_.model; }
  const ConstraintSet& constraints() const { return *constraints_; }
  ConstrainedSolver& solver() { return *solver_; }
  const ProjectionResult& initialProjection() const { return initial_projection_; }
  const Controller& controller() const { return *controller_; }

  const StepRecord& lastStep() const { return last_step_; }
  const EnergyTerms& energy() const { return energy_; }
  const std::optional<Divergence>& divergence() const { return divergence_; }
  bool diverged() const { return divergence_.has_value(); }
  RunSummary summary() const { return statistics_.summary(energy_); }

 private:
  void updateEnergy();

  Scene scene_;
  SimulationOptions options_;
  std::unique_ptr<ConstraintSet> constraints_;
  std::unique_ptr<ConstrainedSolver> solver_;
  std::unique_ptr<Controller> controller_;
  std::unique_ptr<ConstraintProjector> projector_;  // post-step projection (null when off)
  Data data_;
  ConstraintData cdata_;
  ProjectionResult initial_projection_;

  double time_ = 0.0;
  long steps_ = 0;
  VectorX q_, v_, v_previous_, vdot_, lambda_;
  VectorX tau_applied_, tau_damping_, tau_total_;

  StepRecord last_step_;
  EnergyTerms energy_;
  RunStatistics statistics_;
  std::optional<Divergence> divergence_;
};

}  // namespace loopsim
