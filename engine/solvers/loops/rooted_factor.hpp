#pragma once
// The Cholesky factor of prox-bbo's L_RR (paper 001 eq. 51) over the block
// pattern MultiplierElimination gives each link: the rooted multipliers
// eliminated one at a time in its order (`LinkMultipliers::below` lists the
// blocks each elimination couples, fill included). Only those blocks of the
// r x r storage are read or written, so a link where many uncoupled loops
// close (Fig. 9's hub, L_RR block tridiagonal) costs O(r), not O(r³). The
// diagonal blocks use choleskyInPlace; no allocation.
#include <loopsim/solvers/loops/multiplier_elimination.hpp>
#include <loopsim/spatial/types.hpp>

namespace loopsim {

/// F holds L_RR's lower pattern blocks (rows in `link.rooted` order); on
/// return, its Cholesky factor G (L_RR = G Gᵀ) there. False when a pivot is
/// not positive (L_RR not positive definite).
bool factorRooted(const LinkMultipliers& link, Eigen::Ref<MatrixX> F);

/// x ← L_RR⁻¹ x with F from factorRooted.
void solveRooted(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<VectorX> x);

/// X ← L_RR⁻¹ X, all columns in one pass over the factor's blocks.
void solveRootedColumns(const LinkMultipliers& link, const Eigen::Ref<const MatrixX>& F, Eigen::Ref<MatrixX> X);

}  // namespace loopsim
