#include <loopsim/algorithms/configuration.hpp>

#include <cmath>
#include <numbers>

#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

namespace {

Quaternion readQuaternion(const Eigen::Ref<const VectorX>& q, int iq) {
  return Quaternion(q[iq + 3], q[iq], q[iq + 1], q[iq + 2]);
}
void writeQuaternion(const Quaternion& quat, Eigen::Ref<VectorX> q, int iq) {
  q.segment<4>(iq) = quat.coeffs();  // Eigen's coeffs() are [x y z w]
}

// exp of a rotation vector as a unit quaternion (series near zero).
Quaternion quaternionExp(const Vector3& w) {
  const double theta = w.norm();
  const double half = 0.5 * theta;
  const double s = theta < 1e-6 ? 0.5 - theta * theta / 48.0 : std::sin(half) / theta;
  return Quaternion(std::cos(half), s * w.x(), s * w.y(), s * w.z());
}

// Rotation vector of a unit quaternion, taking the short way (w >= 0).
Vector3 quaternionLog(Quaternion quat) {
  if (quat.w() < 0.0) quat.coeffs() = -quat.coeffs();
  const double sin_half = quat.vec().norm();
  const double theta = 2.0 * std::atan2(sin_half, quat.w());
  const double scale = sin_half < 1e-8 ? 2.0 / quat.w() : theta / sin_half;
  return scale * quat.vec();
}

// V(w)⁻¹ = I - W/2 + (1/θ²)(1 - θ sin θ / (2(1 - cos θ))) W², the inverse of
// exp6's translation map (so that exp6([w; V⁻¹ t]).t = t).
Matrix3 inverseLeftJacobian(const Vector3& w) {
  const Matrix3 W = skew(w);
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const double d = theta < 1e-4 ? 1.0 / 12.0 + theta2 / 720.0
                                 : (1.0 - theta * std::sin(theta) / (2.0 * (1.0 - std::cos(theta)))) / theta2;
  return Matrix3::Identity() - 0.5 * W + d * W * W;
}

}  // namespace

void integrate(const Model& model, const Eigen::Ref<const VectorX>& q, const Eigen::Ref<const VectorX>& v, double dt,
               Eigen::Ref<VectorX> q_out) {
  detail::requireSize(q, model.nq, "q");
  detail::requireSize(v, model.nv, "v");
  detail::requireSize(q_out, model.nq, "q_out");
  for (int i = 1; i < model.nbodies(); ++i) {
    const int iq = model.idx_q[i];
    const int iv = model.idx_v[i];
    switch (model.joint_types[i]) {
      case JointType::Revolute:
      case JointType::Prismatic:
        q_out[iq] = q[iq] + dt * v[iv];
        break;
      case JointType::Spherical: {
        // q' = q exp(dt ω), ω in the child frame.
        const Quaternion next = readQuaternion(q, iq) * quaternionExp(dt * v.segment<3>(iv));
        writeQuaternion(next.normalized(), q_out, iq);
        break;
      }
      case JointType::Floating: {
        // (R, p)' = (R, p) exp6(dt [ω; v]), twist in the child frame.
        const Quaternion rot = readQuaternion(q, iq + 3);
        const Motion twist(dt * v.segment<3>(iv), dt * v.segment<3>(iv + 3));
        const Vector3 step = exp6(twist).t;
        const Vector3 position = q.segment<3>(iq) + rot.normalized() * step;
        const Quaternion next = rot * quaternionExp(twist.w);
        q_out.segment<3>(iq) = position;
        writeQuaternion(next.normalized(), q_out, iq + 3);
        break;
      }
    }
  }
}

void jointDifference(const Model& model, int i, const Eigen::Ref<const VectorX>& q0,
                     const Eigen::Ref<const VectorX>& q1, Eigen::Ref<VectorX> v_out) {
  const int iq = model.idx_q[i];
  const int iv = model.idx_v[i];
  switch (model.joint_types[i]) {
    case JointType::Revolute:
    case JointType::Prismatic:
      v_out[iv] = q1[iq] - q0[iq];
      break;
    case JointType::Spherical: {
      const Quaternion r0 = readQuaternion(q0, iq).normalized();
      const Quaternion r1 = readQuaternion(q1, iq).normalized();
      v_out.segment<3>(iv) = quaternionLog(r0.conjugate() * r1);
      break;
    }
    case JointType::Floating: {
      const Quaternion r0 = readQuaternion(q0, iq + 3).normalized();
      const Quaternion r1 = readQuaternion(q1, iq + 3).normalized();
      const Quaternion dr = r0.conjugate() * r1;
      // log6 of (R0, p0)⁻¹ (R1, p1) = (dr, R0ᵀ (p1 - p0)), with the rotation
      // vector from the quaternion (well conditioned up to θ = π).
      const Vector3 w = quaternionLog(dr);
      v_out.segment<3>(iv) = w;
      v_out.segment<3>(iv + 3) = inverseLeftJacobian(w) * (r0.conjugate() * (q1.segment<3>(iq) - q0.segment<3>(iq)));
      break;
    }
  }
}

void difference(const Model& model, const Eigen::Ref<const VectorX>& q0, const Eigen::Ref<const VectorX>& q1,
                Eigen::Ref<VectorX> v_out) {
  detail::requireSize(q0, model.nq, "q0");
  detail::requireSize(q1, model.nq, "q1");
  detail::requireSize(v_out, model.nv, "v_out");
  for (int i = 1; i < model.nbodies(); ++i) jointDifference(model, i, q0, q1, v_out);
}

void normalize(const Model& model, Eigen::Ref<VectorX> q) {
  detail::requireSize(q, model.nq, "q");
  for (int i = 1; i < model.nbodies(); ++i) {
    const int iq = model.idx_q[i];
    if (model.joint_types[i] == JointType::Spherical) q.segment<4>(iq).normalize();
    if (model.joint_types[i] == JointType::Floating) q.segment<4>(iq + 3).normalize();
  }
}

VectorX neutral(const Model& model) {
  VectorX q = VectorX::Zero(model.nq);
  for (int i = 1; i < model.nbodies(); ++i) {
    const int iq = model.idx_q[i];
    if (model.joint_types[i] == JointType::Spherical) q[iq + 3] = 1.0;
    if (model.joint_types[i] == JointType::Floating) q[iq + 6] = 1.0;
  }
  return q;
}

VectorX randomConfiguration(const Model& model, std::mt19937& rng) {
  VectorX q = neutral(model);
  std::normal_distribution<double> gauss(0.0, 1.0);
  auto uniform = [&rng](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto randomQuaternion = [&]() {
    // A normalised isotropic Gaussian 4-vector is uniform on SO(3).
    Vector4 x(gauss(rng), gauss(rng), gauss(rng), gauss(rng));
    return Vector4(x / x.norm());
  };
  for (int i = 1; i < model.nbodies(); ++i) {
    const int iq = model.idx_q[i];
    switch (model.joint_types[i]) {
      case JointType::Revolute:
      case JointType::Prismatic: {
        const double span = model.joint_types[i] == JointType::Revolute ? std::numbers::pi : 1.0;
        double lo = model.lower_position_limit[iq];
        double hi = model.upper_position_limit[iq];
        // Half-open ranges: a window of the default width next to the finite bound.
        if (!std::isfinite(lo) && !std::isfinite(hi)) {
          lo = -span;
          hi = span;
        } else if (!std::isfinite(lo)) {
          lo = hi - 2.0 * span;
        } else if (!std::isfinite(hi)) {
          hi = lo + 2.0 * span;
        }
        q[iq] = lo == hi ? lo : uniform(lo, hi);
        break;
      }
      case JointType::Spherical:
        q.segment<4>(iq) = randomQuaternion();
        break;
      case JointType::Floating:
        for (int k = 0; k < 3; ++k) q[iq + k] = uniform(-1.0, 1.0);
        q.segment<4>(iq + 3) = randomQuaternion();
        break;
    }
  }
  return q;
}

}  // namespace loopsim
