// Paper 004's experiments: Table II (C-RNEA against projected and
// approximate RNEA), Table III (C-ABA against the projection and
// Lagrange-multiplier methods and approximate ABA on the geared and belt chains of 12 links, the
// Mini Cheetah and the MIT Humanoid with their rotors, and Digit's leg loops),
// Fig. 11 (the chains from 2 to 24 links), Table IV with Fig. 12 (C-EFPA
// against the projection method and approximate EFPA) and Fig. 13 (the belt
// chain from 2 to 24 links, its tip pinned); Fig. 14 in paper_004_accuracy.cpp.
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/bench/delassus_benchmark.hpp>
#include <loopsim/bench/paper_004_accuracy.hpp>
#include <loopsim/bench/paper_cells.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/data.hpp>
#include <loopsim/scene/generators/transmission_parts.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim {

namespace {

// The chain's link joints coordinate its clusters (paper 004 Fig. 3a: y are
// the joints the rotors drive).
std::vector<std::string> linkJoints(int links) {
  std::vector<std::string> joints;
  for (int i = 1; i <= links; ++i) joints.push_back("link_" + std::to_string(i) + "_joint");
  return joints;
}

GeneratedMechanism chainMechanism(const std::string& family, int links) {
  if (family == "geared chain") {
    GearedChainParams p;
    p.links = links;
    return gearedChain(p);
  }
  BeltChainParams p;
  p.links = links;
  return beltChain(p);
}

Scene chainScene(const std::string& family, int links) {
  return mechanismScene(family + " n=" + std::to_string(links), chainMechanism(family, links), linkJoints(links));
}

// The chain's end-effector for the Delassus experiments: the far end of its
// last link pinned in the chain's plane (rows x and z of a point).
Scene chainSceneWithTip(const std::string& family, int links) {
  GeneratedMechanism g = chainMechanism(family, links);
  const int last = g.model.bodyId("link_" + std::to_string(links));
  Data data(g.model);
  forwardKinematics(g.model, data, g.q0);
  Constraint tip;
  tip.name = "tip";
  tip.kind = ConstraintKind::Connect;
  tip.body1 = last;
  tip.placement1 = SE3(Matrix3::Identity(), data.oMi[last].actInvPoint(generators::transmissionPivot(RodParams{}, links)));
  tip.placement2 = SE3(Matrix3::Identity(), generators::transmissionPivot(RodParams{}, links));
  tip.row_mask = {0, 2};
  g.constraints.push_back(tip);
  g.constraint_dim += 2;
  g.constraint_rank += 2;
  return mechanismScene(family + " n=" + std::to_string(links), std::move(g), linkJoints(links));
}

const std::vector<std::string>& solvers() {
  static const std::vector<std::string> names = {"cluster-aba", "projection-method", "kkt", "ltl"};
  return names;
}

// The robots of Tables II and III: the 12-link chains, Mini Cheetah and MIT
// Humanoid with their transmissions, Digit with the box.
std::vector<Scene> tableCases(const std::filesystem::path& scenes_dir) {
  return {chainScene("geared chain", 12), chainScene("belt chain", 12),
          transmissionsOnly(loadScene(scenes_dir / "mini_cheetah_standing.yaml"), "mini cheetah"),
          transmissionsOnly(loadScene(scenes_dir / "mit_humanoid_standing.yaml"), "mit humanoid"),
          transmissionsOnly(loadScene(scenes_dir / "tello_standing.yaml"), "tello"),
          loadScene(scenes_dir / "four_bar.yaml"), loadScene(scenes_dir / "geared_four_bar.yaml"),
          loadScene(scenes_dir / "digit_box.yaml")};
}

const char* const kRobotDifferences =
    "Mini Cheetah, MIT Humanoid and Tello are our assets from the reference figures (generalized_rbda's models), "
    "timed floating with their transmissions only, as the paper (no feet held): the scenes mini_cheetah_standing, "
    "mit_humanoid_standing and tello_standing without their feet; the MIT Humanoid's ankle belt as a coupling of "
    "knee and ankle; Tello's differentials (not in the reference file) as linear bevel differentials, where the "
    "paper's are configuration-dependent linkages.";
const char* const kApproximateEfpa = "efpa (loops open)";
const char* const kMissingRobots =
    "JVRC-1 (no reference description here): no scene; added: the four-bar of §III (Fig. 3b) alone and with a "
    "rotor geared to its crank (four_bar, geared_four_bar: cluster-aba's planar loop in closed form), and Digit "
    "with the box (its leg loops as clusters) as a robot with loops.";

PaperExperiment table2(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "004", "table2", "Paper 004 Table II: C-RNEA against projected RNEA and approximate RNEA",
      "time / cluster-rnea on the same robot (the paper's: 1 + its percentage against C-RNEA)");
  e.differences = {
      "Inverse dynamics with loops: τ_y for given independent accelerations ÿ (here the state's τ sample). "
      "Projected RNEA is our projected-rnea (Gᵀ RNEA(q, q̇, G ÿ + g), G of the clusters as cluster-rnea's); "
      "approximate RNEA is our bare RNEA on the spanning tree, which ignores the couplings where the paper's adds "
      "the rotors' reflected inertia.",
      kRobotDifferences, kMissingRobots};
  BenchOptions bench = paperTimingOptions(options);
  bench.no_solvers = true;
  bench.cluster_inverse_dynamics = true;
  timeTableRows(e, tableCases(scenes_dir), bench, options);
  rereference(e, "cluster-rnea");
  setPaperFigures(e, {{"geared chain n=12", {{"projected-rnea", 1.380}, {"rnea", 1.0 - 0.403}}},
                      {"belt chain n=12", {{"projected-rnea", 1.378}, {"rnea", 1.0 - 0.362}}},
                      {"mini cheetah", {{"projected-rnea", 1.367}, {"rnea", 1.0 - 0.410}}},
                      {"mit humanoid", {{"projected-rnea", 1.359}, {"rnea", 1.0 - 0.420}}},
                      {"tello", {{"projected-rnea", 1.224}, {"rnea", 1.0 - 0.596}}}});
  return e;
}

PaperExperiment table3(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "004", "table3",
      "Paper 004 Table III: C-ABA against the Lagrange-multiplier method and approximate ABA",
      "time / cluster-aba on the same robot (the paper's: 1 + its percentage against C-ABA)");
  e.differences = {
      "The Lagrange-multiplier method is our kkt (dense, as the paper's) and ltl (sparse); approximate ABA is our "
      "bare ABA on the spanning tree, which ignores the couplings where the paper's adds the rotors' reflected "
      "inertia to the joints.",
      "The projection method is our projection-method: the spanning tree's CRBA projected by cluster-aba's G, "
      "(Gᵀ M G)⁻¹ by a dense Cholesky (the paper's uses Eigen's dense routines too).",
      kRobotDifferences, kMissingRobots};
  BenchOptions bench = paperTimingOptions(options);
  bench.solvers = solvers();
  timeTableRows(e, tableCases(scenes_dir), bench, options);
  rereference(e, "cluster-aba");
  // 12-link GT chain and PBT chain: percentages against C-ABA.
  setPaperFigures(e, {{"geared chain n=12", {{"kkt", 2.331}, {"projection-method", 1.868}, {"aba", 1.0 - 0.341}}},
                      {"belt chain n=12", {{"kkt", 2.198}, {"projection-method", 1.735}, {"aba", 1.0 - 0.346}}},
                      {"mini cheetah", {{"kkt", 1.763}, {"projection-method", 1.210}, {"aba", 1.0 - 0.353}}},
                      {"mit humanoid", {{"kkt", 2.062}, {"projection-method", 1.325}, {"aba", 1.0 - 0.386}}},
                      {"tello", {{"kkt", 1.827}, {"projection-method", 1.222}, {"aba", 1.0 - 0.494}}}});
  return e;
}

PaperExperiment fig11(const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "004", "fig11",
      "Paper 004 Fig. 11: constrained forward dynamics of the geared and belt chains from 2 to 24 links",
      "time / ABA on the same mechanism");
  e.kind = PaperExperiment::Kind::Scaling;
  e.x_label = "links";
  e.differences = {"The Lagrange-multiplier method is our kkt (dense) and ltl (sparse); the projection method is "
                   "our projection-method (dense Cholesky of Gᵀ M G)."};
  BenchOptions bench = paperTimingOptions(options);
  bench.solvers = solvers();
  const std::vector<int> sizes = options.quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 4, 8, 12, 16, 24};
  for (const char* family : {"geared chain", "belt chain"}) {
    for (int n : sizes) {
      const Scene scene = chainScene(family, n);
      reportProgress(options, e.title + ": " + scene.name);
      const ConstraintSet set(*scene.model, scene.constraints);
      appendCells(e, family, n, scene.model->nv, set.dimension(), benchmarkScene(scene, bench));
    }
  }
  PaperExponents stated;
  for (const char* family : {"geared chain", "belt chain"}) {
    stated[{family, "cluster-aba"}] = {1.0, "linear (§IX text)"};
    stated[{family, "kkt"}] = {3.0, "cubic (§IX text: the Lagrange-multiplier method)"};
    stated[{family, "projection-method"}] = {3.0, "cubic (§IX text: the projection method)"};
  }
  fitExponents(e, 4, stated);
  return e;
}

// The Delassus columns of Table IV and Fig. 13 on one case: C-EFPA, the
// projection method and dense-closed on the scene; approximate EFPA as efpa on
// the open tree (the world constraints alone, the loops and couplings dropped).
void appendDelassusCells(PaperExperiment& e, const std::string& case_name, double x, const Scene& scene,
                         const PaperBenchOptions& options) {
  const BenchOptions bench = paperTimingOptions(options);
  const ConstraintSet set(*scene.model, scene.constraints);
  appendCells(e, case_name, x, scene.model->nv, set.dimension(),
              benchmarkDelassus(scene, bench, {"cluster-efpa", "projection", "dense-closed"}));
  Scene open = scene;
  open.constraints.clear();
  for (const Constraint& c : scene.constraints) {
    if (c.kind != ConstraintKind::Coupling && c.body2 == 0) open.constraints.push_back(c);
  }
  std::vector<BenchResult> approximate = benchmarkDelassus(open, bench, {"efpa"});
  for (BenchResult& r : approximate) {
    if (r.solver == "efpa") r.solver = kApproximateEfpa;
  }
  const std::size_t first = e.cells.size();
  appendCells(e, case_name, x, scene.model->nv, set.dimension(), approximate);
  // Exact for the open tree, not for the mechanism: no error against the loops-closed reference.
  for (std::size_t i = first; i < e.cells.size(); ++i) {
    if (e.cells[i].column == kApproximateEfpa) e.cells[i].exact = false, e.cells[i].error = -1.0;
  }
}

const char* const kDelassusDifferences =
    "The projection method (the paper's Projected EFPA) is our Delassus algorithm projection: J_W G (Gᵀ H G)⁻¹ Gᵀ "
    "J_Wᵀ with H by CRBA and C-EFPA's G, (Gᵀ H G) by a dense Cholesky; dense-closed (the Schur complement of the "
    "loop rows in J M⁻¹ Jᵀ) is the reference both are checked against. Approximate EFPA is our efpa on the open "
    "tree (the couplings dropped), where the paper's adds the rotors' reflected inertia to the joints.";

PaperExperiment table4(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "004", "table4", "Paper 004 Table IV and Fig. 12: C-EFPA against the projection method and approximate EFPA",
      "time / cluster-efpa on the same robot (the paper's: 1 + its percentage against C-EFPA)");
  e.differences = {
      kDelassusDifferences,
      "End-effectors: the chains' tips pinned in their plane (2 rows), the Mini Cheetah's four point feet (12 rows), "
      "the MIT Humanoid's and Tello's soles (11 rows: no sideways row on the left, as their scenes); the "
      "transmissions closed inside (mini_cheetah_standing, mit_humanoid_standing, tello_standing as they are; "
      "Tello's differentials linear, ours).",
      "JVRC-1 (no reference description here): no scene."};
  const std::vector<std::pair<std::string, Scene>> cases = {
      {"geared chain n=12", chainSceneWithTip("geared chain", 12)},
      {"belt chain n=12", chainSceneWithTip("belt chain", 12)},
      {"mini cheetah", loadScene(scenes_dir / "mini_cheetah_standing.yaml")},
      {"mit humanoid", loadScene(scenes_dir / "mit_humanoid_standing.yaml")},
      {"tello", loadScene(scenes_dir / "tello_standing.yaml")}};
  for (const auto& [name, scene] : cases) {
    reportProgress(options, e.title + ": " + name);
    appendDelassusCells(e, name, 0.0, scene, options);
  }
  rereference(e, "cluster-efpa");
  setPaperFigures(e, {{"geared chain n=12", {{"projection", 1.518}, {kApproximateEfpa, 1.0 - 0.357}}},
                      {"belt chain n=12", {{"projection", 1.063}, {kApproximateEfpa, 1.0 - 0.521}}},
                      {"mini cheetah", {{"projection", 1.190}, {kApproximateEfpa, 1.0 - 0.286}}},
                      {"mit humanoid", {{"projection", 1.232}, {kApproximateEfpa, 1.0 - 0.374}}},
                      {"tello", {{"projection", 1.078}, {kApproximateEfpa, 1.0 - 0.514}}}});
  return e;
}

PaperExperiment fig13(const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "004", "fig13", "Paper 004 Fig. 13: the Delassus matrix of the belt chain's tip from 2 to 24 links",
      "time / ABA on the same mechanism");
  e.kind = PaperExperiment::Kind::Scaling;
  e.x_label = "links";
  e.differences = {kDelassusDifferences, "The tip pinned in the chain's plane (2 rows) is the end-effector."};
  const std::vector<int> sizes = options.quick ? std::vector<int>{2, 4, 8} : std::vector<int>{2, 4, 8, 12, 16, 24};
  for (int n : sizes) {
    const Scene scene = chainSceneWithTip("belt chain", n);
    reportProgress(options, e.title + ": " + scene.name);
    appendDelassusCells(e, "belt chain", n, scene, options);
  }
  fitExponents(e, 4,
               {{{"belt chain", "cluster-efpa"}, {1.0, "linear (§IX-A3 text)"}},
                {{"belt chain", "projection"}, {3.0, "cubic (§IX-A3 text: the sparse factorization method)"}}});
  return e;
}

}  // namespace

std::vector<PaperExperiment> runPaper004(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  return {table2(scenes_dir, options), table3(scenes_dir, options), fig11(options), table4(scenes_dir, options),
          fig13(options), paper004Fig14(scenes_dir, options)};
}

}  // namespace loopsim
