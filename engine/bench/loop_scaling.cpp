#include <loopsim/bench/loop_scaling.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include <loopsim/bench/case_grid.hpp>
#include <loopsim/bench/power_law_fit.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/paper_mechanisms.hpp>

namespace loopsim {

namespace {

// A generated mechanism as a bench case (reference pose as q0, at rest) with
// mu: auto, as the scenes recommend: the default μ = 1e8 leaves lcaba's
// penalty-in-inertia round-off at ~1e-6 in v̇ on these rods.
Scene sceneOf(const LoopScalingFamily& family, int size, GeneratedMechanism g) {
  Scene scene;
  scene.name = family.name + " " + family.size_name + "=" + std::to_string(size);
  scene.description = g.doc;
  scene.constraints = std::move(g.constraints);
  scene.q0 = std::move(g.q0);
  scene.v0 = VectorX::Zero(g.model.nv);
  scene.solver_settings.mu_auto = true;
  scene.model = std::make_shared<const Model>(std::move(g.model));
  return scene;
}

std::string columnOf(const BenchResult& r) {
  return r.mode == "direct" || r.mode == "unconstrained" || r.mode == "-" ? r.solver : r.solver + " " + r.mode;
}

const LoopScalingFamily& familyNamed(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : loopScalingFamilies()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw ModelError("", "--family", "unknown loop-scaling family '" + name + "' (one of " + list + ")" +
                                       didYouMean(name, names));
}

}  // namespace

const std::vector<LoopScalingFamily>& loopScalingFamilies() {
  // Seven sizes per family, each ~1.8x the last, from ~10 links to ~250 (the
  // figures' ranges); the branch and loop lengths are the paper's (Fig. 7: 7
  // links per loop).
  static const std::vector<LoopScalingFamily> families = {
      {"cycle", "paper 001 Fig. 6", "n", {8, 14, 25, 45, 80, 144, 256},
       [](int n) { return cycleMechanism({n, {}}); }},
      {"chain_of_loops", "paper 001 Fig. 7", "m_l", {1, 2, 4, 7, 12, 20, 36},
       [](int m) { return chainOfLoops({m, 7, {}}); }},
      {"coupled_worst_case", "paper 001 Fig. 8", "m", {1, 2, 4, 7, 12, 20, 36},
       [](int m) { return coupledWorstCase({m, 3, 7, {}}); }},
      {"favourable_branching", "paper 001 Fig. 9", "m_b", {2, 3, 5, 8, 14, 24, 42},
       [](int m) { return favourableBranching({m, 6, 1, {}}); }},
      {"favourable_branching_grounded", "paper 001 Fig. 9, hub fixed", "m_b", {2, 3, 5, 8, 14, 24, 42},
       [](int m) { return favourableBranching({m, 6, 0, {}}); }},
  };
  return families;
}

const std::vector<std::string>& loopScalingSolvers() {
  static const std::vector<std::string> names = {"lcaba", "prox-bbo", "prox-ltl", "ltl", "kkt"};
  return names;
}

std::vector<LoopScalingPoint> benchmarkLoopScaling(const LoopScalingOptions& options) {
  if (options.fit_sizes < 2) throw ModelError("", "bench --loop-scaling", "the fit needs at least 2 sizes");
  std::vector<const LoopScalingFamily*> families;
  if (options.families.empty()) {
    for (const auto& f : loopScalingFamilies()) families.push_back(&f);
  } else {
    for (const auto& name : options.families) families.push_back(&familyNamed(name));
  }
  BenchOptions bench = options.bench;
  if (bench.solvers.empty()) bench.solvers = loopScalingSolvers();
  bench.thread_cpu_time = true;  // with one thread: the load of a shared machine stays out of the exponents

  std::vector<LoopScalingPoint> points;
  for (const LoopScalingFamily* family : families) {
    // Generated first: the size filter needs the link counts.
    std::vector<std::pair<int, GeneratedMechanism>> cases;
    std::string all_links;
    for (int size : family->sizes) {
      GeneratedMechanism g = family->make(size);
      const int links = g.model.njoints();
      all_links += (all_links.empty() ? "" : ", ") + std::to_string(links);
      if (options.max_links <= 0 || links <= options.max_links) cases.emplace_back(size, std::move(g));
    }
    if (cases.size() < 2) {
      throw ModelError("", "--max-links",
                       std::to_string(options.max_links) + " leaves " + family->name + " fewer than 2 sizes (its sizes have " +
                           all_links + " links): no growth exponent to fit");
    }
    for (auto& [size, g] : cases) {
      const int links = g.model.njoints();
      const Scene scene = sceneOf(*family, size, std::move(g));
      std::fprintf(stderr, "bench --loop-scaling: %s (%d links)\n", scene.name.c_str(), links);
      const int dimension = ConstraintSet(*scene.model, scene.constraints).dimension();
      for (BenchResult& r : benchmarkScene(scene, bench)) {
        points.push_back({family->name, family->size_name, size, links, dimension, std::move(r)});
      }
    }
  }
  return points;
}

std::vector<LoopScalingFit> fitLoopScaling(const std::vector<LoopScalingPoint>& points, int fit_sizes) {
  // (family, column) in first-seen order, each with its timed sizes.
  struct Timed {
    double links, us, ratio_to_aba;
    bool operator<(const Timed& o) const { return links < o.links; }
  };
  std::vector<std::pair<std::string, std::string>> keys;
  std::map<std::pair<std::string, std::string>, std::vector<Timed>> series;
  for (const auto& p : points) {
    if (!p.result.note.empty() || p.result.median_us <= 0.0) continue;  // skipped at this size
    const std::pair<std::string, std::string> key{p.family, columnOf(p.result)};
    if (!series.contains(key)) keys.push_back(key);
    series[key].push_back({static_cast<double>(p.links), p.result.median_us, p.result.ratio_to_aba});
  }
  std::vector<LoopScalingFit> fits;
  for (const auto& key : keys) {
    auto timed = series[key];
    if (timed.size() < 2) continue;
    std::sort(timed.begin(), timed.end());
    if (static_cast<int>(timed.size()) > fit_sizes) timed.erase(timed.begin(), timed.end() - fit_sizes);
    std::vector<std::pair<double, double>> time, ratio;
    for (const Timed& t : timed) {
      time.push_back({t.links, t.us});
      if (t.ratio_to_aba > 0.0) ratio.push_back({t.links, t.ratio_to_aba});
    }
    LoopScalingFit fit{key.first, key.second};
    fit.exponent = fitPowerLawExponent(time);
    fit.last_step_exponent = fitPowerLawExponent(std::vector<std::pair<double, double>>(time.end() - 2, time.end()));
    // The per-round ratios cancel the machine's slow and fast periods, which
    // the times alone carry into the fit (ABA's own exponent wanders 0.9-1.1).
    fit.ratio_exponent = ratio.size() == time.size() ? fitPowerLawExponent(ratio) : 0.0;
    fit.from_links = static_cast<int>(timed.front().links);
    fit.to_links = static_cast<int>(timed.back().links);
    fit.sizes = static_cast<int>(timed.size());
    fits.push_back(fit);
  }
  return fits;
}

namespace {

std::string fitLine(const LoopScalingFit& f) {
  char line[256];
  std::snprintf(line, sizeof line,
                "fit %s %s: time ~ links^%.2f, ratio to aba ~ links^%.2f (links %d..%d, %d largest sizes; last step "
                "^%.2f)\n",
                f.family.c_str(), f.column.c_str(), f.exponent, f.ratio_exponent, f.from_links, f.to_links, f.sizes,
                f.last_step_exponent);
  return line;
}

}  // namespace

std::string formatLoopScalingTable(const std::vector<LoopScalingPoint>& points, const std::vector<LoopScalingFit>& fits) {
  std::string out;
  for (const LoopScalingFamily& family : loopScalingFamilies()) {
    CaseGrid grid;
    for (const auto& p : points) {
      if (p.family != family.name) continue;
      char row[96], cell[64];
      std::snprintf(row, sizeof row, "%s=%d (%d links, m=%d)", p.size_name.c_str(), p.size, p.links, p.constraint_dim);
      const BenchResult& r = p.result;
      if (!r.note.empty()) {
        std::snprintf(cell, sizeof cell, "n/a");
      } else if (r.mode.rfind("tol", 0) == 0) {
        std::snprintf(cell, sizeof cell, "%.2f (%.1f it)", r.median_us, r.mean_iterations);
      } else {
        std::snprintf(cell, sizeof cell, "%.2f", r.median_us);
      }
      grid.set(row, columnOf(r), cell);
    }
    if (grid.cases.empty()) continue;
    out += family.name + " (" + family.figure + "), median µs per solve:\n" + grid.format();
    for (const auto& f : fits) {
      if (f.family == family.name) out += fitLine(f);
    }
    out += "\n";
  }
  const int threads = points.empty() ? 1 : points.front().result.threads;
  out += threads == 1 ? "times: median CPU µs of the timing thread" : "times: median wall µs (" + std::to_string(threads) + " threads)";
  out += " per (q, v, τ) → (v̇, λ) evaluation incl. kinematics, columns interleaved in every round;\n"
         "\"1 iter\" is the paper's measure (the first prox/ALM iteration), \"tol\" a cold start to the tolerance\n"
         "(mean iterations); fits: least squares of log time, and of the median per-round ratio to ABA (robust\n"
         "to the machine's load; + 1 is the growth on an idle machine, ABA being linear), on log links over\n"
         "the largest sizes; last step: the time's slope between the two largest (where a cubic term shows first)\n";
  return out;
}

std::string formatLoopScalingCsv(const std::vector<LoopScalingPoint>& points, const std::vector<LoopScalingFit>& fits) {
  std::string out =
      "family,size_parameter,size,links,constraint_dim,solver,mode,median_us,iqr_us,ratio_to_aba,mean_iterations,"
      "max_vdot_deviation,note\n";
  char line[512];
  for (const auto& p : points) {
    const BenchResult& r = p.result;
    std::snprintf(line, sizeof line, "%s,%s,%d,%d,%d,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,\"%s\"\n", p.family.c_str(),
                  p.size_name.c_str(), p.size, p.links, p.constraint_dim, r.solver.c_str(), r.mode.c_str(), r.median_us,
                  r.spread_us, r.ratio_to_aba, r.mean_iterations, r.max_vdot_deviation, r.note.c_str());
    out += line;
  }
  for (const auto& f : fits) out += "# " + fitLine(f);
  return out;
}

}  // namespace loopsim
