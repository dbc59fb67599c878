#pragma once
// An immutable, validated list of constraints bound to a model, with the
// Baumgarte stabilisation parameters (paper 000 §IX-A; paper 001 §VI-A).
#include <string>
#include <vector>

#include <loopsim/constraints/constraint.hpp>
#include <loopsim/model/model.hpp>

namespace loopsim {

struct BaumgarteGains {
  double kp = 0.0;  // on the position error φ
  double kd = 0.0;  // on the velocity error φ̇
  /// Critically damped response with time constant T: φ̈ + (2/T) φ̇ + (1/T²) φ = 0.
  static BaumgarteGains fromTimeConstant(double T) { return {1.0 / (T * T), 2.0 / T}; }
};

class ConstraintSet {
 public:
  /// Validates every constraint against the model (bodies, joints, masks);
  /// throws ModelError naming the constraint. time_constant <= 0 disables
  /// stabilisation (gains 0) unless a constraint sets its own gains.
  ConstraintSet(const Model& model, std::vector<Constraint> constraints, double time_constant = 0.1);

  const Model& model() const { return *model_; }
  int size() const { return static_cast<int>(constraints_.size()); }
  const Constraint& operator[](int i) const { return constraints_[i]; }
  const std::vector<Constraint>& constraints() const { return constraints_; }

  int dimension() const { return dimension_; }
  int rowOffset(int i) const { return offsets_[i]; }
  double timeConstant() const { return time_constant_; }
  /// A new time constant for the constraints without gains of their own (the
  /// GUI's live Baumgarte T): every later evaluation of the terms uses it. No
  /// allocation; throws ModelError for NaN or Inf.
  void setTimeConstant(double time_constant);
  const BaumgarteGains& gains(int i) const { return gains_[i]; }

  /// "weld 'left_foot' row vz" for the given global row.
  std::string rowDescription(int row) const;
  /// Index of the constraint owning a global row.
  int constraintOfRow(int row) const;

  /// The bodies the constraints attach to (not the world), each once: the
  /// constraint terms read their body-frame velocities and accelerations.
  std::vector<int> endBodies() const;

  bool hasWorldConstraints() const;
  bool hasInternalLoops() const;
  bool hasCouplings() const;

 private:
  const Model* model_;
  std::vector<Constraint> constraints_;
  std::vector<int> offsets_;
  std::vector<BaumgarteGains> gains_;
  int dimension_ = 0;
  double time_constant_;
};

}  // namespace loopsim
