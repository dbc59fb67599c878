#pragma once
// Divergence detection: a NaN or Inf in q or v, or a constraint violation
// beyond a threshold. The report names the degree of freedom (joint name and
// dof index) and the time, so a user can find the culprit.
#include <optional>
#include <string>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

struct Divergence {
  enum class Kind { NonFiniteConfiguration, NonFiniteVelocity, ConstraintViolation };
  Kind kind = Kind::NonFiniteVelocity;
  double time = 0.0;
  long step = 0;
  int dof = -1;           // velocity index (the offending or, for violations, the fastest dof)
  std::string joint;      // name of the joint owning `dof`
  double value = 0.0;     // offending value (NaN/Inf, or the violation)
  std::string constraint_row;  // violations: the worst row ("weld 'foot' row vz")
  double threshold = 0.0;

  /// One line: "diverged at t = 1.234 s (step 1234): NaN in v on joint 'knee' (dof 5)".
  std::string message() const;
};

/// Checks q, v and φ (size set.dimension()) after a step; nullopt when the
/// state is fine. Allocates only when it reports a divergence.
std::optional<Divergence> detectDivergence(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q,
                                           const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& phi,
                                           double violation_threshold, double time, long step);

/// Joint owning configuration index iq (-1 when out of range).
int jointOfConfigurationIndex(const Model& model, int iq);

}  // namespace loopsim
