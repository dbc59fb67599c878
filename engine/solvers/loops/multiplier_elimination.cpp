#include <loopsim/solvers/loops/multiplier_elimination.hpp>

#include <algorithm>
#include <set>

namespace loopsim {

namespace {

// τ_j: the deepest link on both ends' paths to the world (0 when they meet
// only there, or when an end is the world).
int loopRoot(const Model& model, int a, int b) {
  while (a != b) {
    if (a > b) {
      a = model.parent[a];  // parent[i] < i: the larger index is never the ancestor
    } else {
      b = model.parent[b];
    }
  }
  return a;
}

}  // namespace

MultiplierElimination::MultiplierElimination(const ConstraintSet& set) {
  const Model& model = set.model();
  const int nb = model.nbodies();
  links_.assign(nb, {});
  std::vector<int> root(set.size(), 0);
  std::vector<std::set<int>> supported(nb);  // N_i before early elimination
  for (int j = 0; j < set.size(); ++j) {
    const Constraint& c = set[j];
    if (c.kind == ConstraintKind::Coupling) continue;
    root[j] = c.body2 == 0 ? 0 : loopRoot(model, c.body1, c.body2);
    supported[c.body1].insert(j);  // Alg. 4 line 7
    if (c.body2 != 0) supported[c.body2].insert(j);
  }
  std::set<std::pair<int, int>> pairs;
  for (int j = 0; j < set.size(); ++j) {
    if (set[j].kind != ConstraintKind::Coupling) pairs.insert({j, j});
  }
  // 𝒮_τ: children before parents (parent[i] < i).
  for (int i = nb - 1; i >= 1; --i) {
    LinkMultipliers& link = links_[i];
    for (int j : supported[i]) {
      for (int k : supported[i]) {
        if (j <= k) pairs.insert({j, k});  // eq. 46d couples every pair of N_i
      }
    }
    max_supported_ = std::max(max_supported_, static_cast<int>(supported[i].size()));
    for (int j : supported[i]) {
      const int dim = set[j].dimension();
      auto& blocks = root[j] == i ? link.rooted : link.carried;  // Alg. 4 lines 9-10
      blocks.push_back({j, 0, dim, -1});
      if (root[j] != i) supported[model.parent[i]].insert(j);  // eq. 47 (Alg. 4 line 14)
    }
    for (MultiplierBlock& b : link.rooted) b.row = link.rooted_rows, link.rooted_rows += b.dim;
    link.carried_rows = link.rooted_rows;
    for (MultiplierBlock& b : link.carried) b.row = link.carried_rows, link.carried_rows += b.dim;
    link.carried_rows -= link.rooted_rows;
    max_rooted_rows_ = std::max(max_rooted_rows_, link.rooted_rows);
  }
  for (int j : supported[0]) {
    world_.push_back({j, world_rows_, set[j].dimension(), -1});
    world_rows_ += set[j].dimension();
  }
  // Stacked row blocks and where each carried block lands in its parent's.
  for (int i = 1; i < nb; ++i) {
    links_[i].rows_begin = stacked_rows_;
    stacked_rows_ += links_[i].rooted_rows + links_[i].carried_rows;
  }
  for (int i = 1; i < nb; ++i) {
    const int p = model.parent[i];
    if (p == 0) continue;
    for (MultiplierBlock& b : links_[i].carried) {
      for (const auto* list : {&links_[p].rooted, &links_[p].carried}) {
        for (const MultiplierBlock& at_parent : *list) {
          if (at_parent.constraint == b.constraint) b.parent_row = at_parent.row;
        }
      }
    }
  }
  coupled_pairs_.assign(pairs.begin(), pairs.end());
}

}  // namespace loopsim
