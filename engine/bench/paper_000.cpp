// Paper 000's experiments: Table II (constrained forward dynamics on Go1 and
// Atlas with 0-4 constraints), Fig. 2 (the OSIM algorithms on the long stem)
// and Fig. 4 (a tip-welded chain and the ladder, m ~ n).
#include <loopsim/bench/delassus_benchmark.hpp>
#include <loopsim/bench/paper_cells.hpp>
#include <loopsim/bench/paper_table_cases.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim {

namespace {

// Table II in µs (PV, PV-e, LTL, PV-s, LTL-s), as ratios to the robot's
// unconstrained PV (its 0D row: PV with nothing to solve is ABA).
PaperTable table2Figures() {
  struct Row {
    const char* name;
    double pv, pv_early, ltl, pv_soft, ltl_soft;
  };
  const Row iiwa[] = {{"iiwa (0D)", 0.55, 0.55, 0.63, 0.55, 0.63}, {"iiwa (H3)", 0.75, 0.61, 0.83, 0.61, 0.80},
                      {"iiwa (H)", 1.01, 1.09, 1.08, 0.63, 0.89}};
  const Row go1[] = {{"go1 (0D)", 1.65, 1.67, 1.74, 1.64, 1.74}, {"go1 (F3)", 1.88, 1.81, 1.96, 1.70, 1.84},
                     {"go1 (2F3)", 2.10, 1.98, 2.20, 1.76, 1.98}, {"go1 (3F3)", 2.32, 2.14, 2.48, 1.82, 2.16},
                     {"go1 (4F3)", 2.53, 2.33, 2.85, 1.90, 2.33}};
  const Row atlas[] = {{"atlas (0D)", 3.44, 3.47, 4.64, 3.47, 4.64}, {"atlas (F)", 4.59, 3.94, 5.88, 3.61, 5.58},
                       {"atlas (2F)", 6.09, 4.40, 7.52, 3.73, 6.61}, {"atlas (2F+H)", 7.37, 5.03, 8.69, 3.76, 6.93},
                       {"atlas (2F+2H)", 8.27, 5.52, 11.8, 3.82, 7.77}};
  PaperTable table;
  auto add = [&](const Row& r, double floor) {
    table[r.name] = {{"pv", r.pv / floor},
                     {"pv-early", r.pv_early / floor},
                     {"ltl", r.ltl / floor},
                     {"pv-soft", r.pv_soft / floor},
                     {"soft-ltl", r.ltl_soft / floor}};
  };
  for (const Row& r : iiwa) add(r, iiwa[0].pv);
  for (const Row& r : go1) add(r, go1[0].pv);
  for (const Row& r : atlas) add(r, atlas[0].pv);
  return table;
}

PaperExperiment table2(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "000", "table2",
      "Paper 000 Table II: constrained forward dynamics on Iiwa, Go1 and Atlas",
      "time / ABA on the same robot (the paper's: time / its PV on the unconstrained robot)");
  e.differences = {
      "Talos rows: no such robot here (not in ../shared/models).",
      "Iiwa, Go1 and Atlas are our assets (from the reference figures); Iiwa's H holds its tool flange in 6D and "
      "H3 the flange's origin as a 3D point; F3 rows constrain feet as 3D points, F/H rows weld feet and hands in "
      "6D, as the paper.",
      "The paper's Pinocchio and MuJoCo columns are peers, not algorithms of ours: left out.",
      "Our ratios are to bare ABA (no passive forces) timed in the same rounds; the paper has no ABA column, so its "
      "figures are divided by its PV on the unconstrained robot, which solves nothing more than ABA."};
  e.column_order = {"aba", "pv", "pv-early", "ltl", "pv-soft", "soft-ltl", "kkt"};  // the paper's, then ours
  BenchOptions bench = paperTimingOptions(options);
  bench.solvers = {"pv", "pv-early", "ltl", "pv-soft", "soft-ltl", "kkt"};
  timeTableRows(e, paperTable2Cases(scenes_dir), bench, options);
  setPaperFigures(e, table2Figures());
  return e;
}

PaperExperiment fig2(const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "000", "fig2",
      "Paper 000 Fig. 2e-f: the Delassus (OSIM) algorithms on the long stem against its length",
      "time / ABA on the same mechanism");
  e.kind = PaperExperiment::Kind::Scaling;
  e.x_label = "links (stem and branches)";
  e.differences = {
      "The paper counts operations; we time the algorithms (ratios to ABA; exponents of time against all the "
      "links, the stem's 2 to 64 and the branches' 14, so linear growth in the stem is an exponent of 1).",
      "PV-OSIM-fast computes the damped inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹, not the Delassus matrix: the \"damped\" "
      "columns time that inverse at μ = 1e3 by PV-OSIM-fast and by each matrix algorithm followed by a Cholesky "
      "and the inverse (as `loopsim delassus --bench --damping 1e3`)."};
  const std::vector<int> sizes = options.quick ? std::vector<int>{2, 8} : std::vector<int>{2, 4, 8, 16, 32, 64};
  const BenchOptions bench = paperTimingOptions(options);
  for (int s : sizes) {
    const std::string name = "long stem s=" + std::to_string(s);
    reportProgress(options, e.title + ": " + name);
    LongStemParams p;
    p.stem_links = s;
    p.branches = 1;
    GeneratedMechanism g = longStem(p);
    const int nv = g.model.nv, m = g.constraint_dim;
    const Scene scene = mechanismScene(name, std::move(g));
    appendCells(e, "long stem", nv, nv, m, benchmarkDelassus(scene, bench));
    auto damped = benchmarkDampedDelassus(scene, bench, 1e3, {"dense", "pv-osimr", "pv-osim-fast"});
    damped.erase(damped.begin());  // ABA, timed in the table above
    appendCells(e, "long stem", nv, nv, m, damped);
  }
  fitExponents(e, 4,
               {{{"long stem", "pv-osim"}, {1.0, "linear in the stem's length at fixed m (O(n + m²d + m³), §VII)"}},
                {{"long stem", "pv-osimr"}, {1.0, "linear in n at fixed m (paper 002: O(n + m²))"}},
                {{"long stem", "efpa"}, {1.0, "linear in n at fixed m (O(n + md + m²))"}}});
  return e;
}

PaperExperiment fig4(const PaperBenchOptions& options) {
  PaperExperiment e = paperExperiment(
      "000", "fig4",
      "Paper 000 Fig. 4: a chain with its tip welded (4a) and the ladder, m ~ n (4c)",
      "time / ABA on the same mechanism");
  e.kind = PaperExperiment::Kind::Scaling;
  e.x_label = "links";
  e.differences = {"The paper's chains run from 6 to 100 joints; ours from 8 to 128 (quick: 8 to 32).",
                   "Our ladder's rungs are 7 links and its rails 3 links between rungs, as the paper's."};
  e.column_order = {"aba", "pv", "pv-early", "pv-soft", "ltl", "soft-ltl", "kkt"};
  BenchOptions bench = paperTimingOptions(options);
  bench.solvers = {"pv", "pv-early", "pv-soft", "ltl", "soft-ltl", "kkt"};
  const std::vector<int> chains = options.quick ? std::vector<int>{8, 16, 32} : std::vector<int>{8, 16, 32, 64, 128};
  for (int n : chains) {
    const std::string name = "chain n=" + std::to_string(n);
    reportProgress(options, e.title + ": " + name);
    PendulumChainParams p;
    p.links = n;
    GeneratedMechanism g = pendulumChain(p);
    const int nv = g.model.nv, m = g.constraint_dim;
    appendCells(e, "chain", n, nv, m, benchmarkScene(mechanismScene(name, std::move(g)), bench));
  }
  const std::vector<int> ladders = options.quick ? std::vector<int>{2, 4} : std::vector<int>{2, 4, 8, 16, 32};
  for (int rungs : ladders) {
    const std::string name = "ladder rungs=" + std::to_string(rungs);
    reportProgress(options, e.title + ": " + name);
    LadderParams p;
    p.rungs = rungs;
    GeneratedMechanism g = ladderMechanism(p);
    const int nv = g.model.nv, m = g.constraint_dim;
    appendCells(e, "ladder", nv, nv, m, benchmarkScene(mechanismScene(name, std::move(g)), bench));
  }
  const std::string linear = "linear (Fig. 4a text: the O(n) solvers scale linearly)";
  const std::string ladder_linear = "linear (Fig. 4c text: the O(m + n) PV-e and PV-s)";
  fitExponents(e, 4,
               {{{"chain", "pv"}, {1.0, linear}},
                {{"chain", "pv-early"}, {1.0, linear}},
                {{"chain", "pv-soft"}, {1.0, linear}},
                {{"ladder", "pv-early"}, {1.0, ladder_linear}},
                {{"ladder", "pv-soft"}, {1.0, ladder_linear}},
                {{"ladder", "pv"}, {3.0, "cubic in m (Fig. 4c text: PV's m³ root solve)"}}});
  return e;
}

}  // namespace

std::vector<PaperExperiment> runPaper000(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options) {
  return {table2(scenes_dir, options), fig2(options), fig4(options)};
}

}  // namespace loopsim
