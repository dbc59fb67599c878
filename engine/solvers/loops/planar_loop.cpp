#include <loopsim/solvers/loops/planar_loop.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>

namespace loopsim {

namespace {

// Rotations about parallel axes keep them parallel: checked once, at the
// neutral configuration, to this tolerance on unit vectors.
constexpr double kParallelTolerance = 1e-9;

}  // namespace

std::optional<PlanarLoop> PlanarLoop::recognise(const ConstraintSet& set, const BodyCluster& cluster) {
  const Model& m = set.model();
  int loop = -1;
  for (int c : cluster.constraints) {
    if (set[c].kind == ConstraintKind::Coupling) continue;
    if (loop >= 0) return std::nullopt;  // two frame constraints
    loop = c;
  }
  if (loop < 0) return std::nullopt;
  const Constraint& c = set[loop];
  if (c.kind != ConstraintKind::RevoluteLoop || c.row_mask != std::vector<int>{0, 1}) return std::nullopt;

  PlanarLoop out;
  out.constraint_ = loop;
  out.body1_ = c.body1;
  out.body2_ = c.body2;
  out.placement1_ = c.placement1;
  out.placement2_ = c.placement2;
  out.root_ = m.commonAncestor(c.body1, c.body2);

  Data data(m);
  forwardKinematics(m, data, neutral(m));
  const Matrix3 R_root = data.oMi[out.root_].R;
  const Vector3 n_world = (data.oMi[c.body1].R * c.placement1.R).col(2);  // A's z: the loop's axis
  const auto path = [&](int body, std::vector<PathJoint>& joints) {
    for (int j = body; j != out.root_; j = m.parent[j]) {
      if (m.joint_types[j] != JointType::Revolute) return false;
      const Vector3 axis = data.oMi[j].R * m.joint_axes[j];
      if (axis.cross(n_world).norm() > kParallelTolerance) return false;
      const auto it = std::find(cluster.dofs.begin(), cluster.dofs.end(), m.idx_v[j]);
      if (it == cluster.dofs.end()) return false;
      joints.push_back({j, m.idx_v[j], static_cast<int>(it - cluster.dofs.begin()), axis.dot(n_world) > 0 ? 1.0 : -1.0});
    }
    std::reverse(joints.begin(), joints.end());  // from the root out
    return true;
  };
  if (!path(c.body1, out.path1_) || !path(c.body2, out.path2_)) return std::nullopt;
  if (out.path1_.size() + out.path2_.size() < 2) return std::nullopt;

  // (u₁, u₂, n) right-handed, fixed on the root.
  const Vector3 n = R_root.transpose() * n_world;
  const Vector3 other = std::abs(n.x()) < 0.9 ? Vector3::UnitX() : Vector3::UnitY();
  out.u1_ = n.cross(other).normalized();
  out.u2_ = n.cross(out.u1_);
  const int offset = set.rowOffset(loop);
  for (int r = 0; r < 2; ++r) {
    const auto it = std::find(cluster.rows.begin(), cluster.rows.end(), offset + r);
    if (it == cluster.rows.end()) return std::nullopt;
    out.row_position_[r] = static_cast<int>(it - cluster.rows.begin());
  }
  return out;
}

void PlanarLoop::evaluate(const Data& data, const Eigen::Ref<const VectorX>& v, const BaumgarteGains& gains,
                          Eigen::Ref<MatrixX> K, double* k, Eigen::Matrix2d& Q) const {
  const Matrix3& R_root = data.oMi[root_].R;
  const Vector3 u1 = R_root * u1_, u2 = R_root * u2_;
  const SE3& o1 = data.oMi[body1_];
  const Vector3 pA = o1.R * placement1_.t + o1.t;
  const Vector3 pB = body2_ == 0 ? placement2_.t : Vector3(data.oMi[body2_].R * placement2_.t + data.oMi[body2_].t);
  const int r0 = row_position_[0], r1 = row_position_[1];
  Eigen::Vector2d phidot = Eigen::Vector2d::Zero(), bias = Eigen::Vector2d::Zero();
  // Body1's side with +, body2's with −: φ = p_A − p_B.
  const auto side = [&](const std::vector<PathJoint>& joints, const Vector3& point, double sign) {
    double omega = 0.0;  // the link's rate relative to the root
    for (const PathJoint& j : joints) {
      const Vector3 d = point - data.oMi[j.body].t;
      const double d1 = d.dot(u1), d2 = d.dot(u2);
      const double w = j.sign * v[j.v_index];
      const double omega_before = omega;
      omega += w;
      K(r0, j.column) = -sign * j.sign * d2;
      K(r1, j.column) = sign * j.sign * d1;
      phidot += sign * w * Eigen::Vector2d(-d2, d1);
      bias -= sign * (omega_before + omega) * w * Eigen::Vector2d(d1, d2);
    }
  };
  side(path1_, pA, 1.0);
  side(path2_, pB, -1.0);
  const Vector3 dAB = pA - pB;
  const Eigen::Vector2d phi(dAB.dot(u1), dAB.dot(u2));
  const Eigen::Vector2d target = -bias - gains.kd * phidot - gains.kp * phi;
  k[r0] = target[0];
  k[r1] = target[1];
  const Matrix3 RA = o1.R * placement1_.R;
  Q << RA.col(0).dot(u1), RA.col(0).dot(u2), RA.col(1).dot(u1), RA.col(1).dot(u2);
}

}  // namespace loopsim
