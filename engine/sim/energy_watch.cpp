#include <loopsim/sim/energy_watch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

EnergyGrowthWatch::EnergyGrowthWatch(const Simulation& sim) : data_(sim.model()) {
  const EnergyTerms& e = sim.energy();
  scale_ = std::max({1.0, std::abs(e.kinetic), std::abs(e.potential), std::abs(e.total())});
  previous_kinetic_ = e.kinetic;
}

std::optional<std::string> EnergyGrowthWatch::check(const Simulation& sim) {
  const double kinetic = sim.energy().kinetic;
  if (kinetic >= kGrowthPerStep * previous_kinetic_ && kinetic > 0.0) {
    if (growing_steps_ == 0) streak_start_kinetic_ = previous_kinetic_;
    ++growing_steps_;
  } else {
    growing_steps_ = 0;
  }
  previous_kinetic_ = kinetic;
  if (growing_steps_ < kMinGrowthSteps || !(kinetic > kScaleFactor * scale_) ||
      !(kinetic >= kMinTotalGrowth * streak_start_kinetic_)) {
    return std::nullopt;
  }
  char head[256];
  std::snprintf(head, sizeof head,
                "diverged at t = %.6g s (step %ld): kinetic energy grew from %.4g J to %.4g J in %d steps (initial "
                "energy scale %.4g J): a numerical instability",
                sim.time(), sim.stepCount(), streak_start_kinetic_, kinetic, growing_steps_, scale_);
  return std::string(head) + likelyCause(sim);
}

std::string EnergyGrowthWatch::likelyCause(const Simulation& sim) {
  const Model& model = sim.model();
  const Scene& scene = sim.scene();
  const double dt = scene.dt;
  const MatrixX& M = crba(model, data_, sim.q());
  char text[320];
  const ControllerSpec& c = scene.controller;
  const bool pd = c.kind == ControllerSpec::Kind::PdHold || c.kind == ControllerSpec::Kind::Sinusoid;
  if (pd && !scene.actuated_joints.empty()) {
    // The actuated dof where the gains are stiffest relative to its inertia.
    double worst = -1.0;
    int worst_dof = -1;
    for (int j : scene.actuated_joints) {
      for (int k = 0; k < model.joint_nv[j]; ++k) {
        const int i = model.idx_v[j] + k;
        const double m = M(i, i);
        const double ratio = (c.kp * dt * dt + 2.0 * c.kd * dt) / m;
        if (ratio > worst) worst = ratio, worst_dof = i;
      }
    }
    if (worst_dof >= 0) {
      const double m = M(worst_dof, worst_dof);
      std::snprintf(text, sizeof text,
                    "; likely cause: the PD gains (kp %g, kd %g) on joint '%s' at dt %g s: kp*dt^2/m + 2*kd*dt/m = "
                    "%.3g with m = %.3g (its diagonal inertia); semi-implicit Euler needs < 4: lower the gains or dt",
                    c.kp, c.kd, model.joint_names[model.dof_joint[worst_dof]].c_str(), dt,
                    (c.kp * dt * dt + 2.0 * c.kd * dt) / m, m);
      return text;
    }
  }
  // No PD: name the lightest dof (stiff springs or damping act most there).
  Eigen::Index lightest = 0;
  if (model.nv > 0) M.diagonal().minCoeff(&lightest);
  std::snprintf(text, sizeof text, "; likely cause: dt %g s too large for the lightest dof, joint '%s' (diagonal "
                "inertia %.3g): lower dt", dt, model.nv > 0 ? model.joint_names[model.dof_joint[lightest]].c_str() : "?",
                model.nv > 0 ? M(lightest, lightest) : 0.0);
  return text;
}

}  // namespace loopsim
