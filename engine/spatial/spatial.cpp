#include <cmath>

#include <loopsim/spatial/inertia.hpp>

namespace loopsim {

void addTransformedInertia(const SE3& aMb, const Matrix6& I_b, Matrix6& I_a) {
  // I_b is symmetric, [A B; Bᵀ D] (every caller passes an articulated
  // inertia): its lower-left block is not read. With A', B', D' the rotated
  // blocks and P = [t]x,
  //   X* I_b X⁻¹ = [1 P; 0 1] [A' B'; B'ᵀ D'] [1 0; -P 1] = [A' - B'P + P Eᵀ, E; Eᵀ, D'],  E = B' + P D',
  // the products with P as cross products, cheaper than the general blockwise
  // form (four rotated blocks, P as a matrix; docs/performance.md).
  const Matrix3& R = aMb.R;
  const Vector3& t = aMb.t;
  const Matrix3 A = R * I_b.topLeftCorner<3, 3>() * R.transpose();
  const Matrix3 B = R * I_b.topRightCorner<3, 3>() * R.transpose();
  const Matrix3 D = R * I_b.bottomRightCorner<3, 3>() * R.transpose();
  Matrix3 E;
  for (int c = 0; c < 3; ++c) E.col(c) = B.col(c) + t.cross(Vector3(D.col(c)));
  Matrix3 top_left;
  for (int c = 0; c < 3; ++c) top_left.col(c) = A.col(c) + t.cross(Vector3(E.row(c).transpose()));  // + P Eᵀ
  for (int r = 0; r < 3; ++r) top_left.row(r) -= Vector3(B.row(r).transpose()).cross(t).transpose();  // - B'P
  I_a.topLeftCorner<3, 3>() += top_left;
  I_a.topRightCorner<3, 3>() += E;
  I_a.bottomLeftCorner<3, 3>() += E.transpose();
  I_a.bottomRightCorner<3, 3>() += D;
}

Inertia Inertia::operator+(const Inertia& o) const {
  const double m = mass + o.mass;
  if (m <= 0.0) {
    return {m, Vector3::Zero(), inertia_com + o.inertia_com};
  }
  const Vector3 c = (mass * com + o.mass * o.com) / m;
  // Parallel-axis theorem: move both rotational inertias to the common com.
  auto shift = [](double mi, const Vector3& d) { return mi * (d.squaredNorm() * Matrix3::Identity() - d * d.transpose()); };
  return {m, c, inertia_com + shift(mass, com - c) + o.inertia_com + shift(o.mass, o.com - c)};
}

Matrix3 exp3(const Vector3& w) {
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Matrix3 W = skew(w);
  double a, b;  // sin(t)/t, (1-cos(t))/t^2
  if (theta < 1e-4) {
    a = 1.0 - theta2 / 6.0 + theta2 * theta2 / 120.0;
    b = 0.5 - theta2 / 24.0 + theta2 * theta2 / 720.0;
  } else {
    a = std::sin(theta) / theta;
    b = (1.0 - std::cos(theta)) / theta2;
  }
  return Matrix3::Identity() + a * W + b * W * W;
}

Vector3 log3(const Matrix3& R) {
  // vee(R - Rᵀ) = 2 sin θ · axis and tr R = 1 + 2 cos θ. Away from θ = π
  // these give θ directly: the constraints' Baumgarte terms take log3 of
  // near-identity rotations every solve, where AngleAxis' quaternion
  // conversion showed in the solvers' profiles (docs/performance.md).
  const Vector3 two_sin_axis(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  const double sin2 = 0.25 * two_sin_axis.squaredNorm();
  const double cos_theta = 0.5 * (R.trace() - 1.0);
  // θ < 1e-4: θ / sin θ = 1 + s²/6 + 3 s⁴/40 + O(s⁶), s = sin θ.
  if (cos_theta > 0.0 && sin2 < 1e-8) return (0.5 * (1.0 + sin2 * (1.0 / 6.0 + 0.075 * sin2))) * two_sin_axis;
  if (cos_theta > -0.9) {
    const double sin_theta = std::sqrt(sin2);
    return (0.5 * std::atan2(sin_theta, cos_theta) / sin_theta) * two_sin_axis;
  }
  const Eigen::AngleAxisd aa(R);  // near π the axis comes from R's symmetric part
  return aa.angle() * aa.axis();
}

// Left Jacobian-free closed forms: exp([w v]) = (exp3(w), V(w) v) with
// V = I + (1-cos)/t^2 W + (t - sin)/t^3 W^2.
SE3 exp6(const Motion& nu) {
  const Vector3& w = nu.w;
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Matrix3 W = skew(w);
  double b, c;  // (1-cos t)/t^2, (t - sin t)/t^3
  if (theta < 1e-4) {
    b = 0.5 - theta2 / 24.0 + theta2 * theta2 / 720.0;
    c = 1.0 / 6.0 - theta2 / 120.0 + theta2 * theta2 / 5040.0;
  } else {
    b = (1.0 - std::cos(theta)) / theta2;
    c = (theta - std::sin(theta)) / (theta2 * theta);
  }
  const Matrix3 V = Matrix3::Identity() + b * W + c * W * W;
  return {exp3(w), V * nu.v};
}

Motion log6(const SE3& M) {
  const Vector3 w = log3(M.R);
  const double theta2 = w.squaredNorm();
  const double theta = std::sqrt(theta2);
  const Matrix3 W = skew(w);
  // V^-1 = I - W/2 + (1/t^2)(1 - (t sin t)/(2(1-cos t))) W^2
  double d;
  if (theta < 1e-4) {
    d = 1.0 / 12.0 + theta2 / 720.0;
  } else {
    d = (1.0 - theta * std::sin(theta) / (2.0 * (1.0 - std::cos(theta)))) / theta2;
  }
  const Matrix3 Vinv = Matrix3::Identity() - 0.5 * W + d * W * W;
  return {w, Vinv * M.t};
}

}  // namespace loopsim
