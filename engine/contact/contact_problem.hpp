#pragma once
// The velocity-level contact problem of one time step, in the form of
// Pinocchio 3's contact solvers and Carpentier et al. 2024 ("From compliant to
// rigid contact simulation: a unified and efficient approach", RSS 2024):
// find λ with the constraint velocity after the step
//     v⁺ = G λ + g,   G = J M⁻¹ Jᵀ (m x m, symmetric PSD, possibly singular),
//                     g = J v_free + bias (the velocity without constraint forces),
// and, block by block over the rows (blocks of any kind, in any order):
//   frictional  3 rows [t1, t2, n] (the normal LAST), friction μ in [0, ∞]:
//               K_μ ∋ λ ⟂ v⁺ + μ‖v⁺_t‖ e_n ∈ K_μ* (coulomb_cone.hpp)
//   unilateral  1 row (a joint limit, a frictionless contact): λ ≥ 0 ⟂ v⁺ ≥ 0
//   bilateral   any number of rows (loop closures, welds): λ free, v⁺ = 0
// λ is the impulse the constraint applies along its rows, so a positive
// normal λ pushes the bodies apart and v⁺_n > 0 means they separate; G ⪰ 0
// follows from that sign (M v⁺ = M v_free + Jᵀ λ).
//
// The matrix and the vector are filled by the caller in place (G(), g());
// the storage is sized by resize() only, never by a solver.
#include <string>
#include <vector>

#include <loopsim/spatial/types.hpp>

namespace loopsim {

enum class ContactBlockKind { frictional, unilateral, bilateral };

/// One block of rows: `rows` rows from row `first` (3 for a frictional contact, 1 for a
/// unilateral row, at least 1 for a bilateral block); mu is read for frictional blocks only.
struct ContactBlock {
  ContactBlockKind kind = ContactBlockKind::bilateral;
  int first = 0;
  int rows = 1;
  double mu = 0.0;
};

inline ContactBlock frictionalBlock(int first, double mu) { return {ContactBlockKind::frictional, first, 3, mu}; }
inline ContactBlock unilateralBlock(int first) { return {ContactBlockKind::unilateral, first, 1, 0.0}; }
inline ContactBlock bilateralBlock(int first, int rows) { return {ContactBlockKind::bilateral, first, rows, 0.0}; }

/// "frictional", "unilateral", "bilateral".
const char* contactBlockKindName(ContactBlockKind kind);

class ContactProblem {
 public:
  ContactProblem() = default;
  ContactProblem(int m, const std::vector<ContactBlock>& blocks) { resize(m, blocks); }

  /// Sizes G (m x m, zero) and g (m, zero) and takes the blocks. Throws ModelError
  /// naming the block and the value when the blocks do not cover rows 0..m-1 one
  /// after the other, a block has the wrong number of rows, or a friction
  /// coefficient is negative or NaN (+∞ is allowed: no slip). Allocates when
  /// the sizes change, and only here.
  void resize(int m, const std::vector<ContactBlock>& blocks);
  /// Changes the friction of frictional block `block` (checked as in resize). No allocation.
  void setFriction(int block, double mu);

  int size() const { return static_cast<int>(g_.size()); }
  const std::vector<ContactBlock>& blocks() const { return blocks_; }

  MatrixX& G() { return G_; }
  const MatrixX& G() const { return G_; }
  VectorX& g() { return g_; }
  const VectorX& g() const { return g_; }

  /// v = G λ + g. No allocation.
  void velocity(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> v) const;

 private:
  MatrixX G_;
  VectorX g_;
  std::vector<ContactBlock> blocks_;
};

/// "block 2 (frictional, rows 6-8)": how errors and reports name a block.
std::string describeContactBlock(const std::vector<ContactBlock>& blocks, int block);

}  // namespace loopsim
