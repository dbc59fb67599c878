#pragma once
// proxBBO's elimination graph, built once at bind time (paper 001 §V-A,
// eqs. 47-50, Alg. 4 lines 3-7, 9-10 and 14).
//
// The multipliers are nodes too: link i supports the set N_i = LS(i) of
// constraints with an end in its subtree that are still active. Links are
// eliminated children first (the spanning-tree order 𝒮_τ); a constraint is
// eliminated early, at its loop root τ_j, the deepest link supporting both
// its ends (R_i: the constraints rooted at i; U_i = N_i - R_i travel on to
// the parent, eq. 47). Constraints with an end on the world, and loops whose
// two ends only meet at the world, are solved there (§IV-A: a_0 is known).
//
// Each link's constraint rows K̄_{i,N_i} are stacked in one row block, R_i's
// first, then U_i's; `parent_row` says where a carried constraint's rows land
// in the parent's block (eq. 46c adds there).
//
// The multipliers rooted at one link are eliminated one after another: the
// maximum over λ_R of eq. 49 taken one λ_j at a time (Fig. 5: each multiplier
// is a node, its elimination couples its neighbours), which is a block
// Cholesky of L_RR. The order is minimum degree over the couplings L_RR holds
// (§IV-A "Elimination ordering", LCABA's heuristic), and the factor only has
// the blocks that elimination couples (`below`). Where many loops close at one link without coupling each other
// (Fig. 9's hub: each weld only meets its neighbours' in L), L_RR is block
// tridiagonal and its factor costs O(|R_i|), not the O(|R_i|³) of a dense one.
// The world is the last such link: its multipliers are ordered and factored
// the same way (Fig. 9 with the hub fixed: every weld closes there), and
// where they are all coupled (Fig. 8's stem) the pattern is the dense one.
#include <array>
#include <utility>
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

struct MultiplierBlock {
  int constraint = 0;
  int row = 0;  // first row inside the link's stacked block
  int dim = 0;
  int parent_row = -1;  // carried blocks: first row inside the parent's block (-1: the parent is the world)
};

struct LinkMultipliers {
  int rows_begin = 0;                   // first row of the link's block in the stacked storage
  std::vector<MultiplierBlock> rooted;  // R_i in elimination order, rows [0, rooted_rows)
  // Per rooted block k: the later rooted blocks (indices into `rooted`,
  // ascending) its elimination couples, fill included: the block column k of
  // L_RR's Cholesky factor below the diagonal.
  std::vector<std::vector<int>> below;
  /// Three or more rooted blocks, each coupled to every later one (Fig. 8's
  /// stem at the world): the factor is a dense one, and rooted_factor takes
  /// the dense path.
  bool dense = false;
  std::vector<MultiplierBlock> carried;  // U_i, rows [rooted_rows, rooted_rows + carried_rows)
  int rooted_rows = 0, carried_rows = 0;
};

class MultiplierElimination {
 public:
  explicit MultiplierElimination(const ConstraintSet& set);

  const LinkMultipliers& link(int body) const { return links_[body]; }
  /// Constraints solved at the world as the rooted multipliers of one more
  /// link (rows in the world block, elimination order and fill as a link's).
  const LinkMultipliers& world() const { return world_; }
  int worldRows() const { return world_.rooted_rows; }
  /// Pairs (j, j'), j <= j', whose L block the sweeps write (zeroed per solve):
  /// j = j' and the pairs carried together (eqs. 46d, 52 update L_UU only).
  /// Every other block of L stays zero.
  const std::vector<std::pair<int, int>>& coupledPairs() const { return coupled_pairs_; }
  int stackedRows() const { return stacked_rows_; }
  int maxRootedRows() const { return max_rooted_rows_; }
  /// m_b: the most constraints a link supports (paper 001 eq. 53).
  int maxSupported() const { return max_supported_; }
  /// Where constraint j's rows start in the stacked storage at body1 ([0]) and
  /// body2 ([1]; -1 when body2 is the world).
  const std::array<int, 2>& endRows(int j) const { return end_rows_[j]; }

 private:
  std::vector<LinkMultipliers> links_;
  LinkMultipliers world_;
  std::vector<std::pair<int, int>> coupled_pairs_;
  std::vector<std::array<int, 2>> end_rows_;
  int stacked_rows_ = 0, max_rooted_rows_ = 0, max_supported_ = 0;
};

}  // namespace loopsim
