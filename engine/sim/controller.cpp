#include <loopsim/sim/controller.hpp>

#include <spdlog/fmt/fmt.h>
#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

const char* controllerKindName(ControllerSpec::Kind kind) {
  switch (kind) {
    case ControllerSpec::Kind::None: return "none";
    case ControllerSpec::Kind::PdHold: return "pd_hold";
    case ControllerSpec::Kind::GravityCompensation: return "gravity_compensation";
    case ControllerSpec::Kind::Sinusoid: return "sinusoid";
  }
  return "?";
}

Controller::Controller(const Model& model, const ControllerSpec& spec, const std::vector<int>& actuated_joints,
                       const VectorX& q0)
    : model_(model),
      spec_(spec),
      q0_(q0),
      actuated_mask_(VectorX::Zero(model.nv)),
      actuated_joints_(actuated_joints),
      drive_of_joint_(model.nbodies(), -1),
      feedforward_(VectorX::Zero(model.nv)),
      data_(model),
      position_error_(VectorX::Zero(model.nv)),
      zero_nv_(VectorX::Zero(model.nv)),
      saturated_per_dof_(static_cast<std::size_t>(model.nv), 0),
      saturated_now_(VectorX::Zero(model.nv)) {
  const std::string element = std::string("controller '") + controllerKindName(spec.kind) + "'";
  auto fail = [&](const std::string& why) { throw ModelError(model.source_file, element, why); };
  if (q0.size() != model.nq) fail("initial configuration has size " + std::to_string(q0.size()) + ", expected " + std::to_string(model.nq));
  for (int j : actuated_joints) {
    if (j < 1 || j >= model.nbodies()) fail("actuated joint index " + std::to_string(j) + " out of range");
    actuated_mask_.segment(model.idx_v[j], model.joint_nv[j]).setOnes();
  }
  if (!std::isfinite(spec.kp) || !std::isfinite(spec.kd) || spec.kp < 0.0 || spec.kd < 0.0) {
    fail("gains must be finite and >= 0 (kp " + std::to_string(spec.kp) + ", kd " + std::to_string(spec.kd) + ")");
  }
  // Only actuated dofs carry effort (τ is masked elsewhere), so only they can saturate.
  for (int i = 0; i < model.nv; ++i) {
    const double limit = model.effort_limit[i];
    if (actuated_mask_[i] != 0.0 && limit > 0.0 && std::isfinite(limit)) limited_dofs_.push_back(i);
  }
  for (std::size_t d = 0; d < spec.drives.size(); ++d) {
    const SinusoidDrive& drive = spec.drives[d];
    if (drive.joint < 1 || drive.joint >= model.nbodies()) fail("drive joint index " + std::to_string(drive.joint) + " out of range");
    const std::string& name = model.joint_names[drive.joint];
    if (model.joint_nv[drive.joint] != 1) fail("drive on joint '" + name + "', which is not a one-dof joint");
    if (actuated_mask_[model.idx_v[drive.joint]] == 0.0) fail("drive on joint '" + name + "', which is not actuated");
    if (drive_of_joint_[drive.joint] >= 0) fail("two drives on joint '" + name + "'");
    if (!std::isfinite(drive.amplitude) || !std::isfinite(drive.frequency_hz) || !std::isfinite(drive.phase) ||
        !std::isfinite(drive.offset)) {
      fail("drive on joint '" + name + "' has a NaN or Inf parameter");
    }
    drive_of_joint_[drive.joint] = static_cast<int>(d);
  }
  if (spec.feedforward == ControllerSpec::Feedforward::Hold && spec.kind != ControllerSpec::Kind::PdHold &&
      spec.kind != ControllerSpec::Kind::Sinusoid) {
    fail("feedforward 'hold' applies to controllers pd_hold and sinusoid");
  }
}

void Controller::hold(const ConstraintSet& constraints, const Eigen::Ref<const VectorX>& q) {
  if (&constraints.model() != &model_) {
    throw ModelError(model_.source_file, "controller", "hold: the constraint set belongs to another model");
  }
  if (q.size() != model_.nq) {
    throw ModelError(model_.source_file, "controller",
                     "hold: configuration has size " + std::to_string(q.size()) + ", expected " + std::to_string(model_.nq));
  }
  if (spec_.feedforward == ControllerSpec::Feedforward::Hold) {
    HoldingForces holding = loopsim::holdingForces(constraints, q, actuated_joints_);  // throws before any change
    hold_warnings_.clear();
    // One warning for every joint beyond its limit (a humanoid's pose may exceed several).
    std::vector<std::string> beyond;
    for (int i = 0; i < model_.nv; ++i) {
      const double limit = model_.effort_limit[i];
      if (limit > 0.0 && std::isfinite(limit) && std::abs(holding.tau[i]) > limit) {
        beyond.push_back(fmt::format("'{}' {:.4g} (limit {:.4g})", dofName(model_, i), holding.tau[i], limit));
      }
    }
    if (!beyond.empty()) {
      hold_warnings_.push_back(fmt::format(
          "hold: the pose needs more than the effort limit on {} {} (N m or N): {}; the holding feed-forward is "
          "applied in full there (only the PD correction saturates at the limit)",
          beyond.size(), beyond.size() == 1 ? "joint" : "joints", fmt::join(beyond, ", ")));
      spdlog::warn("{}", hold_warnings_.back());
    }
    feedforward_ = holding.tau;
    holding_ = std::move(holding);
  }
  q0_ = q;
}

VectorX Controller::derivativeGains() const {
  switch (spec_.kind) {
    case ControllerSpec::Kind::PdHold:
    case ControllerSpec::Kind::Sinusoid:
      return spec_.kd * actuated_mask_;
    case ControllerSpec::Kind::None:
    case ControllerSpec::Kind::GravityCompensation:
      break;
  }
  return VectorX::Zero(model_.nv);
}

void Controller::pdOnActuatedJoints(const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                                    Eigen::Ref<VectorX> tau) {
  // q0 ⊖ q on the actuated joints only (elsewhere it stays 0, and compute()
  // masks τ there): an unactuated floating base's error, a quaternion log and
  // an atan2, is work a step need not do (docs/performance.md). A 1-dof
  // joint's error is the plain difference jointDifference would form.
  for (int j : actuated_joints_) {
    if (model_.joint_nv[j] == 1) {
      position_error_[model_.idx_v[j]] = q0_[model_.idx_q[j]] - q[model_.idx_q[j]];
    } else {
      jointDifference(model_, j, q, q0_, position_error_);  // on the manifold (quaternions)
    }
  }
  tau = spec_.kp * position_error_ - spec_.kd * v + feedforward_;
}

void Controller::compute(double t, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v,
                         Eigen::Ref<VectorX> tau) {
  switch (spec_.kind) {
    case ControllerSpec::Kind::None:
      tau.setZero();
      return;
    case ControllerSpec::Kind::PdHold:
      pdOnActuatedJoints(q, v, tau);
      break;
    case ControllerSpec::Kind::GravityCompensation:
      tau = rnea(model_, data_, q, zero_nv_, zero_nv_);
      break;
    case ControllerSpec::Kind::Sinusoid: {
      pdOnActuatedJoints(q, v, tau);
      for (int j = 1; j < model_.nbodies(); ++j) {
        const int d = drive_of_joint_[j];
        if (d < 0) continue;
        const SinusoidDrive& drive = spec_.drives[d];
        const double omega = 2.0 * std::numbers::pi * drive.frequency_hz;
        const double reference = drive.offset + drive.amplitude * std::sin(omega * t + drive.phase);
        const double reference_rate = drive.amplitude * omega * std::cos(omega * t + drive.phase);
        const int iv = model_.idx_v[j];
        tau[iv] = spec_.kp * (reference - q[model_.idx_q[j]]) + spec_.kd * (reference_rate - v[iv]) + feedforward_[iv];
      }
      break;
    }
  }
  tau.array() *= actuated_mask_.array();
  // Effort limits (0 or inf: no limit given): the control effort beyond the
  // holding feed-forward saturates at the model's limit; the feed-forward that
  // holds the pose is applied in full (hold() warns when it exceeds a limit).
  bool saturated = false;
  saturated_now_.setZero();
  for (int i : limited_dofs_) {
    const double limit = model_.effort_limit[i];
    const double correction = tau[i] - feedforward_[i];
    if (!(std::abs(correction) > limit)) continue;  // NaN passes through
    tau[i] = feedforward_[i] + std::copysign(limit, correction);
    saturated_now_[i] = 1.0;
    ++saturated_per_dof_[static_cast<std::size_t>(i)];
    saturated = true;
  }
  if (saturated) ++saturated_calls_;
}

}  // namespace loopsim
