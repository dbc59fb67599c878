#include <loopsim/solvers/loops/multiplier_elimination.hpp>

#include <algorithm>
#include <set>

namespace loopsim {

namespace {

// Minimum degree order of the rooted blocks over the couplings `pairs` holds
// (ties: the earlier block), and the fill of eliminating them in that order:
// `below[k]` lists the later blocks block k is coupled to when it goes. The
// rooted rows are laid out in that order; `dense` says whether the pattern is full.
void orderRooted(LinkMultipliers& link, const std::set<std::pair<int, int>>& pairs) {
  const int n = static_cast<int>(link.rooted.size());
  std::vector<std::set<int>> adjacent(n);  // over positions in the input order
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const int ja = link.rooted[a].constraint, jb = link.rooted[b].constraint;
      if (pairs.count({std::min(ja, jb), std::max(ja, jb)}) > 0) adjacent[a].insert(b), adjacent[b].insert(a);
    }
  }
  std::vector<int> order, position(n, -1);
  std::vector<std::vector<int>> neighbours_when_eliminated;
  for (int step = 0; step < n; ++step) {
    int best = -1;
    for (int a = 0; a < n; ++a) {
      if (position[a] < 0 && (best < 0 || adjacent[a].size() < adjacent[best].size())) best = a;
    }
    position[best] = step;
    order.push_back(best);
    neighbours_when_eliminated.emplace_back(adjacent[best].begin(), adjacent[best].end());
    for (int a : adjacent[best]) {
      adjacent[a].erase(best);
      for (int b : adjacent[best]) {
        if (a != b) adjacent[a].insert(b);  // fill: eliminating `best` couples its neighbours
      }
    }
    adjacent[best].clear();
  }
  std::vector<MultiplierBlock> ordered;
  link.below.assign(n, {});
  for (int k = 0; k < n; ++k) {
    ordered.push_back(link.rooted[order[k]]);
    for (int a : neighbours_when_eliminated[k]) link.below[k].push_back(position[a]);
    std::sort(link.below[k].begin(), link.below[k].end());
  }
  link.dense = n >= 3;  // two blocks: the block form is as short
  for (int k = 0; k < n; ++k) link.dense = link.dense && static_cast<int>(link.below[k].size()) == n - 1 - k;
  link.rooted = std::move(ordered);
  for (MultiplierBlock& b : link.rooted) b.row = link.rooted_rows, link.rooted_rows += b.dim;
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
    root[j] = c.body2 == 0 ? 0 : model.commonAncestor(c.body1, c.body2);  // τ_j: the deepest link on both paths
    supported[c.body1].insert(j);  // Alg. 4 line 7
    if (c.body2 != 0) supported[c.body2].insert(j);
  }
  std::set<std::pair<int, int>> pairs;
  for (int j = 0; j < set.size(); ++j) {
    if (set[j].kind != ConstraintKind::Coupling) pairs.insert({j, j});
  }
  // 𝒮_τ: children before parents (parent[i] < i), so a link's L_RR couplings
  // are all known (from its descendants' U sets) when it is ordered.
  for (int i = nb - 1; i >= 1; --i) {
    LinkMultipliers& link = links_[i];
    max_supported_ = std::max(max_supported_, static_cast<int>(supported[i].size()));
    for (int j : supported[i]) {
      const int dim = set[j].dimension();
      auto& blocks = root[j] == i ? link.rooted : link.carried;  // Alg. 4 lines 9-10
      blocks.push_back({j, 0, dim, -1});
      if (root[j] != i) supported[model.parent[i]].insert(j);  // eq. 47 (Alg. 4 line 14)
    }
    for (const MultiplierBlock& a : link.carried) {
      for (const MultiplierBlock& b : link.carried) {
        if (a.constraint < b.constraint) pairs.insert({a.constraint, b.constraint});  // eqs. 46d, 52: L_UU
      }
    }
    orderRooted(link, pairs);
    link.carried_rows = link.rooted_rows;
    for (MultiplierBlock& b : link.carried) b.row = link.carried_rows, link.carried_rows += b.dim;
    link.carried_rows -= link.rooted_rows;
    max_rooted_rows_ = std::max(max_rooted_rows_, link.rooted_rows);
  }
  // §IV-A: what reaches the world is solved there, ordered over the couplings
  // the links left in L like any link's rooted multipliers.
  for (int j : supported[0]) world_.rooted.push_back({j, 0, set[j].dimension(), -1});
  orderRooted(world_, pairs);
  // Stacked row blocks, where each constraint's ends start in them, and where
  // each carried block lands in its parent's (row_at: per constraint, its
  // row in the link being visited; children are visited after parents).
  end_rows_.assign(set.size(), {-1, -1});
  std::vector<int> row_at(set.size(), -1);
  for (int i = 1; i < nb; ++i) {
    LinkMultipliers& link = links_[i];
    link.rows_begin = stacked_rows_;
    stacked_rows_ += link.rooted_rows + link.carried_rows;
    for (const auto* list : {&link.rooted, &link.carried}) {
      for (const MultiplierBlock& b : *list) {
        if (set[b.constraint].body1 == i) end_rows_[b.constraint][0] = link.rows_begin + b.row;
        if (set[b.constraint].body2 == i) end_rows_[b.constraint][1] = link.rows_begin + b.row;
      }
    }
  }
  for (int p = 1; p < nb; ++p) {
    for (const auto* list : {&links_[p].rooted, &links_[p].carried}) {
      for (const MultiplierBlock& b : *list) row_at[b.constraint] = b.row;
    }
    for (int c : model.children[p]) {
      for (MultiplierBlock& b : links_[c].carried) b.parent_row = row_at[b.constraint];
    }
  }
  coupled_pairs_.assign(pairs.begin(), pairs.end());
}

}  // namespace loopsim
