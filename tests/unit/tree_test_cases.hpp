#pragma once
// Tree scenes with world constraints and random consistent states, shared by
// the recursive-solver and Delassus tests: 3D and 6D constraints on feet,
// hands, a mid-chain link and the base link itself; fixed and floating bases;
// spherical and prismatic joints; the Atlas and Go1 robot scenes.
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Eigenvalues>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/scene/generators.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include "test_models.hpp"

namespace loopsim::test {

struct TreeCase {
  std::string name;
  Model model;
  std::vector<Constraint> constraints;
  VectorX q0;
  double q_noise = 0.1;
  std::vector<int> held;
};

inline VectorX randomVector(std::mt19937& rng, int n, double scale) {
  std::normal_distribution<double> g(0.0, scale);
  return VectorX::NullaryExpr(n, [&](Eigen::Index) { return g(rng); });
}

inline double relativeError(const VectorX& value, const VectorX& reference) {
  return (value - reference).lpNorm<Eigen::Infinity>() / std::max(1.0, reference.lpNorm<Eigen::Infinity>());
}

/// A world constraint of `kind` on a frame (or, with frame = "", body `body`),
/// targeted where it is at q.
inline Constraint worldConstraint(const Model& model, const std::string& name, ConstraintKind kind,
                                  const std::string& frame, int body = 0) {
  Constraint c;
  c.name = name;
  c.kind = kind;
  if (!frame.empty()) {
    const Frame& f = model.frames[model.existingFrame(frame)];
    c.body1 = f.body;
    c.placement1 = f.placement;
  } else {
    c.body1 = body;
  }
  return c;
}

inline std::vector<Constraint> retargetWorldConstraints(const Model& model, std::vector<Constraint> constraints,
                                                        const VectorX& q) {
  Data data(model);
  forwardKinematics(model, data, q);
  for (Constraint& c : constraints) {
    if (c.kind != ConstraintKind::Coupling && c.body2 == 0) c.placement2 = data.oMi[c.body1] * c.placement1;
  }
  return constraints;
}

inline std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

inline TreeCase sceneCase(const std::string& file, double q_noise) {
  const Scene scene = loadScene(scenesDir() / file);
  return {scene.name, *scene.model, scene.constraints, scene.q0, q_noise, scene.held_joints};
}

/// Every tree case the recursive solvers support.
inline std::vector<TreeCase> treeCases() {
  std::vector<TreeCase> cases;
  {
    GeneratedMechanism h = humanoidTree();
    cases.push_back({"humanoid, feet welded (6D)", h.model, h.constraints, h.q0, 0.3, {}});
    auto c = h.constraints;
    c.push_back(worldConstraint(h.model, "left_hand_weld", ConstraintKind::Weld, "left_hand"));
    c.push_back(worldConstraint(h.model, "right_hand_weld", ConstraintKind::Weld, "right_hand"));
    cases.push_back({"humanoid, feet and hands welded (2F+2H)", h.model, c, h.q0, 0.2, {}});
    auto mid = h.constraints;
    mid.push_back(worldConstraint(h.model, "left_elbow_point", ConstraintKind::Connect, "",
                                  h.model.jointId("left_elbow")));
    mid.push_back(worldConstraint(h.model, "right_hand_point", ConstraintKind::Connect, "right_hand"));
    cases.push_back({"humanoid, feet welded, mid-arm and hand points (3D)", h.model, mid, h.q0, 0.2, {}});
    std::vector<Constraint> base;
    base.push_back(worldConstraint(h.model, "pelvis_weld", ConstraintKind::Weld, "", 1));
    base.push_back(worldConstraint(h.model, "left_foot_point", ConstraintKind::Connect, "left_foot"));
    base.push_back(worldConstraint(h.model, "right_hand_weld", ConstraintKind::Weld, "right_hand"));
    cases.push_back({"humanoid, base link welded, foot point, hand welded", h.model, base, h.q0, 0.3, {}});
    // 9 rows on a 6-dof leg: L_b^A is singular although the set is full rank
    // (the hip point moves in 3D with the foot fixed: ankle and knee).
    std::vector<Constraint> leg;
    leg.push_back(worldConstraint(h.model, "left_foot_weld", ConstraintKind::Weld, "left_foot"));
    leg.push_back(worldConstraint(h.model, "left_hip_point", ConstraintKind::Connect, "",
                                  h.model.jointId("left_hip_pitch")));
    cases.push_back({"humanoid, left foot welded and left hip point (9 rows, 6-dof leg)", h.model, leg, h.q0, 0.3, {}});
  }
  {
    PendulumChainParams ten;
    ten.links = 10;  // 10 dof for 9 rows
    GeneratedMechanism p = pendulumChain(ten);
    auto c = p.constraints;
    c.push_back(worldConstraint(p.model, "mid_point", ConstraintKind::Connect, "", p.model.jointId("link_4_joint")));
    cases.push_back({"fixed-base chain, tip welded, mid link point", p.model, c, p.q0, 0.5, {}});
  }
  {
    const Model tree = branchingTree();
    std::vector<Constraint> c;
    c.push_back(worldConstraint(tree, "tip_a_point", ConstraintKind::Connect, "tip_a"));
    c.push_back(worldConstraint(tree, "tip_b_point", ConstraintKind::Connect, "tip_b"));
    c.push_back(worldConstraint(tree, "tip_side_point", ConstraintKind::Connect, "tip_side"));
    VectorX q0(tree.nq);
    std::mt19937 rng(5);
    q0 = randomConfiguration(tree, rng);
    cases.push_back({"branching tree (spherical, prismatic), three points", tree, c, q0, 0.3, {}});
  }
  cases.push_back(sceneCase("atlas_standing.yaml", 0.05));
  cases.push_back(sceneCase("atlas_2f2h.yaml", 0.05));
  cases.push_back(sceneCase("go1_standing.yaml", 0.05));
  return cases;
}

struct TreeState {
  VectorX q, v, tau;
  std::vector<Force> fext;
  std::vector<Constraint> constraints;  // world targets moved to the sampled pose
};

/// A constraint-consistent random state near the case's q0.
inline TreeState sampleTreeState(const TreeCase& c, std::mt19937& rng) {
  const Model& model = c.model;
  TreeState s;
  s.q.resize(model.nq);
  integrate(model, c.q0, randomVector(rng, model.nv, c.q_noise), 1.0, s.q);
  s.constraints = retargetWorldConstraints(model, c.constraints, s.q);
  s.v = randomVector(rng, model.nv, 1.0);
  const ConstraintSet set(model, s.constraints);
  makeConsistent(set, s.q, s.v, c.held);
  s.tau = randomVector(rng, model.nv, 5.0);
  s.fext.resize(model.nbodies());
  for (Force& f : s.fext) f = Force(randomVector(rng, 6, 2.0));
  return s;
}

inline double delassusCondition(const MatrixX& delassus) {
  const Eigen::SelfAdjointEigenSolver<MatrixX> eig(delassus, Eigen::EigenvaluesOnly);
  const double lo = eig.eigenvalues().minCoeff(), hi = eig.eigenvalues().maxCoeff();
  return lo > 0.0 ? hi / lo : std::numeric_limits<double>::infinity();
}

}  // namespace loopsim::test
