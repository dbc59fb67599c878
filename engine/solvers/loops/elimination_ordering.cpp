#include <loopsim/solvers/loops/elimination_ordering.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace loopsim {

EliminationOrdering::EliminationOrdering(const ConstraintSet& set) {
  const Model& model = set.model();
  const int nb = model.nbodies();
  std::vector<std::set<int>> neighbours(nb);
  std::vector<bool> receives_force(nb, false);  // a constrained link, or reached by one's force change
  std::map<std::pair<int, int>, int> slot_of_pair;
  auto slot = [&](int a, int b) {
    const auto key = std::minmax(a, b);
    const auto [it, inserted] = slot_of_pair.try_emplace({key.first, key.second}, slot_count_);
    if (inserted) ++slot_count_;
    return it->second;
  };
  auto ref = [&](int from, int to) { return CouplingRef{to, slot(from, to), from > to}; };

  // Alg. 1 lines 4-8: the cut-joint edges (eq. 22); world constraints add none (§IV-A).
  for (const Constraint& c : set.constraints()) {
    if (c.kind == ConstraintKind::Coupling) continue;
    receives_force[c.body1] = true;
    if (c.body2 == 0) continue;
    receives_force[c.body2] = true;
    neighbours[c.body1].insert(c.body2);
    neighbours[c.body2].insert(c.body1);
    slot(c.body1, c.body2);
  }

  // Minimum degree over the current leaves (§IV-A), ties to the highest index.
  std::vector<int> children_left(nb, 0);
  for (int i = 1; i < nb; ++i) {
    if (model.parent[i] > 0) ++children_left[model.parent[i]];
  }
  std::set<std::pair<int, int>> leaves;  // (|N_i|, -i)
  auto leafKey = [&](int i) { return std::make_pair(static_cast<int>(neighbours[i].size()), -i); };
  for (int i = 1; i < nb; ++i) {
    if (children_left[i] == 0) leaves.insert(leafKey(i));
  }
  std::vector<bool> is_leaf(nb, false);
  for (const auto& key : leaves) is_leaf[-key.second] = true;

  while (!leaves.empty()) {
    const int i = -leaves.begin()->second;
    leaves.erase(leaves.begin());
    is_leaf[i] = false;
    EliminationStep step;
    step.body = i;
    step.parent = model.parent[i];
    step.column = neighbour_columns_;
    step.carries_force_change = receives_force[i];
    const std::vector<int> n_i(neighbours[i].begin(), neighbours[i].end());
    for (int j : n_i) step.neighbours.push_back(ref(i, j));
    for (std::size_t a = 0; a < n_i.size(); ++a) {
      for (std::size_t b = a + 1; b < n_i.size(); ++b) step.neighbour_pairs.push_back(ref(n_i[a], n_i[b]));
      const bool own = step.parent == 0 || n_i[a] == step.parent;
      step.parent_couplings.push_back(own ? CouplingRef{n_i[a], -1, false} : ref(step.parent, n_i[a]));
    }
    neighbour_columns_ += static_cast<int>(n_i.size()) * model.joint_nv[i];
    max_neighbours_ = std::max(max_neighbours_, static_cast<int>(n_i.size()));

    // Eqs. 31-32 (Alg. 1 lines 14-18): i leaves the graph, N_i ∪ {π(i)} becomes a clique.
    std::vector<int> clique = n_i;
    if (step.parent != 0 && !neighbours[i].contains(step.parent)) clique.push_back(step.parent);
    for (int j : clique) {
      if (is_leaf[j]) leaves.erase(leafKey(j));
    }
    for (int j : clique) {
      neighbours[j].erase(i);
      for (int k : clique) {
        if (k != j) neighbours[j].insert(k);
      }
    }
    if (step.carries_force_change) {
      for (int j : clique) receives_force[j] = true;
    }
    if (step.parent != 0 && --children_left[step.parent] == 0) is_leaf[step.parent] = true;
    for (int j : clique) {
      if (is_leaf[j]) leaves.insert(leafKey(j));
    }
    steps_.push_back(std::move(step));
  }

  // Depth of each link in the roll-out's dependency graph (its parent and its
  // neighbours come first: both are eliminated after it); reversed 𝒮^E
  // within a depth, so the order stays a valid roll-out.
  std::vector<int> depth(nb, 0);
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    int d = it->parent != 0 ? depth[it->parent] : 0;
    for (const CouplingRef& n : it->neighbours) d = std::max(d, depth[n.body]);
    depth[it->body] = d + 1;
  }
  for (int k = static_cast<int>(steps_.size()) - 1; k >= 0; --k) forward_order_.push_back(k);
  std::stable_sort(forward_order_.begin(), forward_order_.end(),
                   [&](int a, int b) { return depth[steps_[a].body] < depth[steps_[b].body]; });

  slots_by_body_.assign(nb, {});
  for (const auto& [pair, s] : slot_of_pair) slots_by_body_[pair.first].emplace_back(pair.second, s);
}

int EliminationOrdering::slotOf(int a, int b) const {
  const auto [lo, hi] = std::minmax(a, b);
  for (const auto& [other, s] : slots_by_body_[lo]) {
    if (other == hi) return s;
  }
  return -1;
}

}  // namespace loopsim
