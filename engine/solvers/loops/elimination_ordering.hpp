#pragma once
// LCABA's elimination graph, built once at bind time (paper 001 §IV-A
// "Elimination ordering", eqs. 31-32, Alg. 1 lines 3-8 and 13-18).
//
// Nodes are the moving links; an edge joins two links whose accelerations are
// coupled in the augmented Lagrangian: initially the two ends of every
// constraint between moving bodies (eq. 22's μ K¹ᵀK²; world constraints add
// no edge, §IV-A). Eliminating a leaf link i (all its children gone) couples
// every pair of N_i ∪ {π(i)} (eq. 32) and removes i (eq. 31). The order is
// the minimum-degree heuristic over the current leaves: fewest neighbours
// first; ties go to the highest link index, so a tree without internal loops
// is eliminated in ABA's order n, n-1, ..., 1.
//
// Everything here depends on the topology only, so the solve never touches a
// set: every coupling block H_{j,k} has a slot fixed here, and each step lists
// the slots it reads and writes.
#include <vector>

#include <loopsim/constraints/constraint_set.hpp>

namespace loopsim {

/// H_{from,to} (6 x 6, rows in `from`'s frame, columns in `to`'s) is stored
/// once per unordered pair as H_{lo,hi}; `transposed` when from > to.
struct CouplingRef {
  int body = 0;  // the other link
  int slot = -1;
  bool transposed = false;
};

struct EliminationStep {
  int body = 0;
  int parent = 0;
  /// N_i at elimination: H_{i,j} for each neighbour j (may include π(i)).
  std::vector<CouplingRef> neighbours;
  /// H_{j_a,j_b} for a < b over `neighbours` (row-major over the upper triangle).
  std::vector<CouplingRef> neighbour_pairs;
  /// H_{π(i),j_a} per neighbour; slot -1 when j_a = π(i) (eq. 34) or π(i) is the world.
  std::vector<CouplingRef> parent_couplings;
  /// First column of this step's (H̄_{i,N_i} S_i) blocks in the solver's
  /// workspace: neighbour a uses columns [column + a nv_i, column + (a+1) nv_i).
  int column = 0;
  /// Whether a force change on the constrained links can reach this link in
  /// the reduced backward sweep (paper 001 Alg. 2 lines 1-6); links that
  /// carry none skip it.
  bool carries_force_change = false;
};

class EliminationOrdering {
 public:
  /// Builds the graph of `set` (couplings are not links' constraints and are
  /// ignored here; the solver refuses them).
  explicit EliminationOrdering(const ConstraintSet& set);

  /// 𝒮^E: the steps in elimination order (the backward sweep's).
  const std::vector<EliminationStep>& steps() const { return steps_; }
  /// Indices into steps() in an order the roll-out and the reduced forward
  /// sweep may run (the reduced backward sweep runs it backwards): every link
  /// after its parent and its neighbours, grouped by depth in that dependency
  /// graph. Reversed 𝒮^E would do too, but it walks one branch to its end
  /// before the next, so each link waits on the one before it; by depth,
  /// neighbouring steps lie on independent branches and their dependency
  /// chains overlap.
  const std::vector<int>& forwardOrder() const { return forward_order_; }
  /// Coupling blocks to allocate.
  int slotCount() const { return slot_count_; }
  /// Slot of the coupling between two distinct moving links (-1 when never coupled).
  int slotOf(int a, int b) const;
  /// m_c: the largest neighbour count met (paper 001 §IV-D).
  int maxNeighbours() const { return max_neighbours_; }
  /// Columns of the (H̄ S) workspace: Σ_i |N_i| nv_i.
  int neighbourColumns() const { return neighbour_columns_; }

 private:
  std::vector<EliminationStep> steps_;
  std::vector<int> forward_order_;
  std::vector<std::vector<std::pair<int, int>>> slots_by_body_;  // (other body, slot) for lo < other
  int slot_count_ = 0;
  int max_neighbours_ = 0;
  int neighbour_columns_ = 0;
};

}  // namespace loopsim
