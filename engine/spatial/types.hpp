#pragma once
// Eigen aliases used across the engine. Spatial vectors are ordered
// [angular; linear] (Featherstone) everywhere in loopsim.
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace loopsim {

using Vector3 = Eigen::Vector3d;
using Vector4 = Eigen::Vector4d;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using VectorX = Eigen::VectorXd;
using Matrix3 = Eigen::Matrix3d;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using MatrixX = Eigen::MatrixXd;
using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using Quaternion = Eigen::Quaterniond;

/// Storage for many vectorisable fixed-size blocks (Matrix6, Vector6): the
/// buffer starts on Eigen's widest packet boundary. Loops whose length is
/// only known at run time (a block of a Matrix6, a product with a dynamic
/// inner size) peel to the first aligned element, which changes the rounding;
/// with this storage they peel alike wherever the buffer lands, so results do
/// not depend on the allocation history.
template <class T>
using AlignedVector = std::vector<T, Eigen::aligned_allocator<T>>;

/// Skew-symmetric matrix [a]x such that [a]x b = a x b.
inline Matrix3 skew(const Vector3& a) {
  Matrix3 s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

}  // namespace loopsim
