#include <loopsim/sim/divergence.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loopsim {

int jointOfConfigurationIndex(const Model& model, int iq) {
  for (int j = 1; j < model.nbodies(); ++j) {
    if (iq >= model.idx_q[j] && iq < model.idx_q[j] + model.joint_nq[j]) return j;
  }
  return -1;
}

std::string Divergence::message() const {
  char head[96];
  std::snprintf(head, sizeof head, "diverged at t = %.6g s (step %ld): ", time, step);
  char number[48];
  std::string out = head;
  const std::string where = "joint '" + joint + "' (dof " + std::to_string(dof) + ")";
  switch (kind) {
    case Kind::NonFiniteConfiguration:
      out += std::string(std::isnan(value) ? "NaN" : "Inf") + " in q on " + where;
      break;
    case Kind::NonFiniteVelocity:
      out += std::string(std::isnan(value) ? "NaN" : "Inf") + " in v on " + where;
      break;
    case Kind::ConstraintViolation:
      std::snprintf(number, sizeof number, "%.3g (threshold %.3g)", value, threshold);
      out += "constraint violation " + std::string(number) + " on " + constraint_row;
      if (dof >= 0) out += "; fastest dof: " + where;
      break;
  }
  return out;
}

std::optional<Divergence> detectDivergence(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                           const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& phi,
                                           double violation_threshold, double time, long step) {
  const Model& model = set.model();
  // Cheap common case first: everything finite and within the threshold.
  const bool finite = q.allFinite() && v.allFinite();
  const double violation = phi.size() > 0 ? phi.cwiseAbs().maxCoeff() : 0.0;
  if (finite && violation <= violation_threshold) return std::nullopt;

  Divergence d;
  d.time = time;
  d.step = step;
  d.threshold = violation_threshold;
  auto nameDof = [&](int iv) {
    d.dof = iv;
    d.joint = iv >= 0 ? model.joint_names[model.dof_joint[iv]] : std::string("?");
  };
  for (int iq = 0; iq < model.nq; ++iq) {
    if (std::isfinite(q[iq])) continue;
    d.kind = Divergence::Kind::NonFiniteConfiguration;
    d.value = q[iq];
    const int j = jointOfConfigurationIndex(model, iq);
    nameDof(j > 0 ? model.idx_v[j] + std::min(iq - model.idx_q[j], model.joint_nv[j] - 1) : -1);
    return d;
  }
  for (int iv = 0; iv < model.nv; ++iv) {
    if (std::isfinite(v[iv])) continue;
    d.kind = Divergence::Kind::NonFiniteVelocity;
    d.value = v[iv];
    nameDof(iv);
    return d;
  }
  // Violation (a NaN in φ with finite q would compare false above: report it here too).
  d.kind = Divergence::Kind::ConstraintViolation;
  Eigen::Index worst = 0;
  for (Eigen::Index r = 0; r < phi.size(); ++r) {
    if (!(std::abs(phi[r]) <= std::abs(phi[worst])) || !std::isfinite(phi[r])) worst = r;
    if (!std::isfinite(phi[r])) break;
  }
  d.value = std::abs(phi[worst]);
  d.constraint_row = set.rowDescription(static_cast<int>(worst));
  Eigen::Index fastest = -1;
  if (model.nv > 0) v.cwiseAbs().maxCoeff(&fastest);
  nameDof(static_cast<int>(fastest));
  return d;
}

}  // namespace loopsim
