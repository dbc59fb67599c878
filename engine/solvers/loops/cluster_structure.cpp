#include <loopsim/solvers/loops/cluster_structure.hpp>

#include <algorithm>
#include <numeric>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

// Union-find over bodies (0 = world is never merged).
struct BodyGroups {
  explicit BodyGroups(int n) : root(n) { std::iota(root.begin(), root.end(), 0); }
  int find(int b) {
    while (root[b] != b) b = root[b] = root[root[b]];
    return b;
  }
  // The smaller index becomes the root, so a group's root is its top-most body.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) root[std::max(a, b)] = std::min(a, b);
  }
  std::vector<int> root;
};

// The bodies on the tree path from `body` up to `ancestor`, ancestor excluded.
void joinPath(const Model& model, BodyGroups& groups, int body, int ancestor, int anchor) {
  for (int b = body; b != ancestor; b = model.parent[b]) groups.join(anchor, b);
}

std::string quoted(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "'" : ", '") + n + "'";
  return out.empty() ? "none" : out;
}

// "'knee', 'achilles-rod' dof 0" for the declared dofs of `bodies`' joints
// ("none" when there are none): a joint by name when all its dofs are
// declared, else with its declared dof positions.
std::string declaredDofs(const Model& m, const std::vector<int>& bodies, const std::vector<bool>& declared) {
  std::string out;
  for (int b : bodies) {
    std::vector<int> positions;
    for (int k = 0; k < m.joint_nv[b]; ++k) {
      if (declared[m.idx_v[b] + k]) positions.push_back(k);
    }
    if (positions.empty()) continue;
    out += (out.empty() ? "'" : ", '") + m.joint_names[b] + "'";
    if (static_cast<int>(positions.size()) == m.joint_nv[b]) continue;
    out += positions.size() > 1 ? " dofs " : " dof ";
    for (std::size_t i = 0; i < positions.size(); ++i) out += (i ? ", " : "") + std::to_string(positions[i]);
  }
  return out.empty() ? "none" : out;
}

}  // namespace

bool isWorldConstraint(const Constraint& c) { return c.kind != ConstraintKind::Coupling && c.body2 == 0; }

ClusterStructure::ClusterStructure(const ConstraintSet& set, const std::vector<int>& independent_dofs,
                                   const std::string& owner, ClusterScope scope)
    : model_(set.model()) {
  const Model& m = model_;
  const int n = m.nbodies();
  const std::string& file = m.source_file;
  std::vector<bool> declared(m.nv, false);
  for (int d : independent_dofs) {
    if (d < 0 || d >= m.nv) {
      throw ModelError(file, owner, "independent dof index " + std::to_string(d) + " is not a dof of the model");
    }
    declared[d] = true;
  }

  // Groups of the loops and couplings (paper 004 §IV-A: the bodies a loop's constraint involves).
  BodyGroups groups(n);
  std::vector<int> constraint_anchor(set.size(), -1);
  for (int c = 0; c < set.size(); ++c) {
    const Constraint& con = set[c];
    if (scope == ClusterScope::InternalLoops && isWorldConstraint(con)) continue;  // a Delassus row, no loop
    if (con.kind == ConstraintKind::Coupling) {
      int ancestor = con.coupling_joints.front();
      for (int j : con.coupling_joints) ancestor = m.commonAncestor(ancestor, j);
      const int anchor = con.coupling_joints.front();
      for (int j : con.coupling_joints) joinPath(m, groups, j, ancestor, anchor);
      // A coupled joint may itself be the common ancestor (a joint geared to its own descendant).
      if (ancestor != 0 && std::find(con.coupling_joints.begin(), con.coupling_joints.end(), ancestor) !=
                               con.coupling_joints.end()) {
        groups.join(anchor, ancestor);
      }
      constraint_anchor[c] = anchor;
    } else {
      const int ancestor = m.commonAncestor(con.body1, con.body2);
      const int anchor = con.body1 != ancestor ? con.body1 : con.body2;
      joinPath(m, groups, con.body1, ancestor, anchor);
      joinPath(m, groups, con.body2, ancestor, anchor);
      constraint_anchor[c] = anchor;
    }
  }

  // Output body Λ(i) under the current grouping.
  auto outputOf = [&](int i) {
    int o = m.parent[i];
    while (o != 0 && groups.find(o) == groups.find(i)) o = m.parent[o];
    return o;
  };
  // A group must hang from one parent group: one whose outputs lie in several
  // groups absorbs all but the top-most (the outputs are ancestors of its
  // bodies, so the lower ones sit between it and the top-most one).
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 1; i < n && !changed; ++i) {
      if (groups.find(i) != i) continue;  // visit each group once, by its root
      int top = -1;
      std::vector<int> outputs;
      for (int b = 1; b < n; ++b) {
        if (groups.find(b) != i) continue;
        const int o = outputOf(b);
        outputs.push_back(o);
        if (top < 0 || o < top) top = o;
      }
      const int top_group = top == 0 ? 0 : groups.find(top);
      for (int o : outputs) {
        if (o != 0 && groups.find(o) != top_group) {
          groups.join(i, o);
          changed = true;
        }
      }
    }
  }

  // Clusters ordered by their top-most body: a parent cluster holds Λ(min body) < min body, so it comes first.
  cluster_of_.assign(n, -1);
  position_.assign(n, -1);
  for (int b = 1; b < n; ++b) {
    const int r = groups.find(b);
    if (cluster_of_[r] < 0) {
      cluster_of_[r] = static_cast<int>(clusters_.size());
      clusters_.emplace_back();
    }
    BodyCluster& cl = clusters_[cluster_of_[r]];
    cluster_of_[b] = cluster_of_[r];
    position_[b] = cl.bodyCount();
    cl.bodies.push_back(b);
  }
  for (BodyCluster& cl : clusters_) {
    for (int p = 0; p < cl.bodyCount(); ++p) {
      const int b = cl.bodies[p];
      cl.output.push_back(outputOf(b));
      const int lp = m.parent[b];
      cl.local_parent.push_back(lp != 0 && groups.find(lp) == groups.find(b) ? position_[lp] : -1);
      for (int k = 0; k < m.joint_nv[b]; ++k) {
        cl.dofs.push_back(m.idx_v[b] + k);
        cl.dof_body.push_back(p);
      }
    }
    const int o = cl.output.front();
    cl.parent = o == 0 ? -1 : cluster_of_[o];
  }
  for (int c = 0; c < set.size(); ++c) {
    if (constraint_anchor[c] < 0) continue;
    BodyCluster& cl = clusters_[cluster_of_[constraint_anchor[c]]];
    cl.constraints.push_back(c);
    for (int r = 0; r < set[c].dimension(); ++r) cl.rows.push_back(set.rowOffset(c) + r);
  }
  for (BodyCluster& cl : clusters_) {
    cl.constant_jacobian = !cl.constraints.empty() && std::all_of(cl.constraints.begin(), cl.constraints.end(), [&](int c) {
      return set[c].kind == ConstraintKind::Coupling;
    });
  }

  // Independent and dependent coordinates.
  for (BodyCluster& cl : clusters_) {
    for (int k = 0; k < cl.dofCount(); ++k) {
      const bool independent = cl.rowCount() == 0 || declared[cl.dofs[k]];
      (independent ? cl.independent : cl.dependent).push_back(k);
    }
    std::vector<std::string> joints;
    for (int b : cl.bodies) joints.push_back(m.joint_names[b]);
    const std::string declared_here = declaredDofs(m, cl.bodies, declared);
    if (cl.rowCount() == 0) {
      if (declared_here != "none") {
        throw ModelError(file, owner,
                         "joint(s) " + declared_here +
                             " declared independent but close no loop or coupling (joints outside the loops are "
                             "independent already); remove them from 'independent'");
      }
      continue;
    }
    if (static_cast<int>(cl.dependent.size()) != cl.rowCount()) {
      std::vector<std::string> cons;
      for (int c : cl.constraints) cons.push_back(set[c].name);
      const int needed = cl.dofCount() - cl.rowCount();
      throw ModelError(
          file, owner,
          "the loop cluster of constraint(s) " + quoted(cons) + " (joints " + quoted(joints) + ": " +
              std::to_string(cl.dofCount()) + " dofs, " + std::to_string(cl.rowCount()) +
              " constraint rows) needs " + (needed >= 0 ? std::to_string(needed) : std::string("a negative number of")) +
              " independent dofs, but 'independent' declares " + declared_here + " (" +
              std::to_string(cl.independentCount()) + " dofs)" +
              (needed > 0 ? "; list joints (or single dofs, {joint: NAME, dofs: [...]}) of this cluster with " +
                                std::to_string(needed) + " dofs in total under 'independent'"
                          : "; redundant or over-determined loops cannot be clustered (use prox-ltl)"));
    }
  }
  for (const BodyCluster& cl : clusters_) {
    for (int k : cl.independent) independent_dof_indices_.push_back(cl.dofs[k]);
  }
  independent_dofs_ = static_cast<int>(independent_dof_indices_.size());
}

int ClusterStructure::largestCluster() const {
  int out = 0;
  for (const BodyCluster& cl : clusters_) out = std::max(out, cl.bodyCount());
  return out;
}

std::string ClusterStructure::jointList(const BodyCluster& cluster) const {
  std::vector<std::string> names;
  for (int b : cluster.bodies) names.push_back(model_.joint_names[b]);
  return quoted(names);
}

}  // namespace loopsim
