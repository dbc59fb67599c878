#include <loopsim/constraints/constraint_set.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/model/errors.hpp>

namespace loopsim {

std::string_view constraintRowName(ConstraintKind kind, int full_row) {
  static constexpr std::string_view weld[] = {"wx", "wy", "wz", "vx", "vy", "vz"};
  static constexpr std::string_view point[] = {"x", "y", "z", "rx", "ry"};
  switch (kind) {
    case ConstraintKind::Weld: return weld[full_row];
    case ConstraintKind::Connect:
    case ConstraintKind::RevoluteLoop: return point[full_row];
    case ConstraintKind::Coupling: return "c";
  }
  return "?";
}

namespace {

void validate(const Model& model, const Constraint& c) {
  const std::string element = std::string(constraintKindName(c.kind)) + " '" + c.name + "'";
  auto fail = [&](const std::string& why) { throw ModelError(model.source_file, element, why); };
  if (c.kind == ConstraintKind::Coupling) {
    if (c.coupling_joints.empty()) fail("coupling needs at least one joint");
    if (c.coupling_joints.size() != c.coupling_coefficients.size()) fail("one coefficient per joint is required");
    for (std::size_t k = 0; k < c.coupling_joints.size(); ++k) {
      const int j = c.coupling_joints[k];
      if (j < 1 || j >= model.nbodies()) fail("joint index " + std::to_string(j) + " out of range");
      if (model.joint_nv[j] != 1) fail("joint '" + model.joint_names[j] + "' is not a one-dof joint");
      if (!std::isfinite(c.coupling_coefficients[k])) fail("coefficient is NaN or Inf");
    }
    if (!std::isfinite(c.coupling_offset)) fail("offset is NaN or Inf");
  } else {
    for (int b : {c.body1, c.body2}) {
      if (b < 0 || b >= model.nbodies()) fail("body index " + std::to_string(b) + " out of range");
    }
    if (c.body1 == c.body2) fail("both ends are on body '" + model.body_names[c.body1] + "'");
    if (c.body1 == 0) fail("the first body must not be the world (swap the two ends)");
    if (!c.placement1.R.allFinite() || !c.placement1.t.allFinite() || !c.placement2.R.allFinite() ||
        !c.placement2.t.allFinite()) {
      fail("placement has a NaN or Inf value");
    }
  }
  const int full = fullRowCount(c.kind);
  for (std::size_t r = 0; r < c.row_mask.size(); ++r) {
    if (c.row_mask[r] < 0 || c.row_mask[r] >= full) fail("row mask entry " + std::to_string(c.row_mask[r]) + " out of range");
    if (r > 0 && c.row_mask[r] <= c.row_mask[r - 1]) fail("row mask must be strictly increasing");
  }
  for (const auto& g : {c.kp, c.kd}) {
    if (g && (!std::isfinite(*g) || *g < 0.0)) fail("Baumgarte gain must be finite and >= 0");
  }
}

}  // namespace

void ConstraintSet::setTimeConstant(double time_constant) {
  if (!std::isfinite(time_constant)) throw ModelError(model_->source_file, "constraints", "time constant is NaN or Inf");
  time_constant_ = time_constant;
  const BaumgarteGains from_T = time_constant > 0.0 ? BaumgarteGains::fromTimeConstant(time_constant) : BaumgarteGains{};
  for (std::size_t i = 0; i < constraints_.size(); ++i) {
    gains_[i] = {constraints_[i].kp.value_or(from_T.kp), constraints_[i].kd.value_or(from_T.kd)};
  }
}

ConstraintSet::ConstraintSet(const Model& model, std::vector<Constraint> constraints, double time_constant)
    : model_(&model), constraints_(std::move(constraints)), time_constant_(time_constant) {
  if (!std::isfinite(time_constant)) throw ModelError(model.source_file, "constraints", "time constant is NaN or Inf");
  const BaumgarteGains from_T = time_constant > 0.0 ? BaumgarteGains::fromTimeConstant(time_constant) : BaumgarteGains{};
  for (std::size_t i = 0; i < constraints_.size(); ++i) {
    const Constraint& c = constraints_[i];
    validate(model, c);
    for (std::size_t j = 0; j < i; ++j) {
      if (constraints_[j].name == c.name) {
        throw ModelError(model.source_file, "constraint '" + c.name + "'", "duplicate constraint name");
      }
    }
    offsets_.push_back(dimension_);
    dimension_ += c.dimension();
    gains_.push_back({c.kp.value_or(from_T.kp), c.kd.value_or(from_T.kd)});
  }
}

int ConstraintSet::constraintOfRow(int row) const {
  for (int i = size() - 1; i >= 0; --i) {
    if (row >= offsets_[i]) return i;
  }
  return -1;
}

std::string ConstraintSet::rowDescription(int row) const {
  const int i = constraintOfRow(row);
  if (i < 0 || row >= dimension_) return "row " + std::to_string(row) + " (out of range)";
  const Constraint& c = constraints_[i];
  return std::string(constraintKindName(c.kind)) + " '" + c.name + "' row " +
         std::string(constraintRowName(c.kind, c.fullRow(row - offsets_[i])));
}

bool ConstraintSet::hasWorldConstraints() const {
  for (const auto& c : constraints_) {
    if (c.kind != ConstraintKind::Coupling && c.body2 == 0) return true;
  }
  return false;
}

bool ConstraintSet::hasInternalLoops() const {
  for (const auto& c : constraints_) {
    if (c.kind != ConstraintKind::Coupling && c.body2 != 0) return true;
  }
  return false;
}

std::vector<int> ConstraintSet::endBodies() const {
  std::vector<int> bodies;
  for (const auto& c : constraints_) {
    if (c.kind == ConstraintKind::Coupling) continue;
    for (int b : {c.body1, c.body2}) {
      if (b > 0 && std::find(bodies.begin(), bodies.end(), b) == bodies.end()) bodies.push_back(b);
    }
  }
  return bodies;
}

bool ConstraintSet::hasCouplings() const {
  for (const auto& c : constraints_) {
    if (c.kind == ConstraintKind::Coupling) return true;
  }
  return false;
}

}  // namespace loopsim
