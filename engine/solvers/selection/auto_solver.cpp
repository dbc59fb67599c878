#include <loopsim/solvers/selection/auto_solver.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {

using Clock = std::chrono::steady_clock;

struct Candidate {
  const SolverInfo* info;
  std::unique_ptr<ConstrainedSolver> solver;
  VectorX vdot, lambda;
  int batch = 1;
  int solves = 0;  // timed solves so far: picks the next q variant
  std::vector<double> per_round_us;
  ProbeTiming timing;
};

double median(std::vector<double> x) {
  const auto mid = x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2);
  std::nth_element(x.begin(), mid, x.end());
  return *mid;
}

// The q variants the timed solves cycle through (see probeSolvers).
constexpr int kProbeStates = 4;

double elapsedUs(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

}  // namespace

std::string SolverSelection::summary() const {
  std::string out = picked + " (probe:";
  bool first = true;
  for (const auto& t : timings) {
    if (!t.excluded.empty()) continue;
    char cell[64];
    std::snprintf(cell, sizeof cell, "%s %s %.1f µs", first ? "" : ",", t.solver.c_str(), t.median_us);
    out += cell;
    first = false;
  }
  out += ")";
  return out;
}

SolverSelection probeSolvers(const std::vector<std::string>& names, const ConstraintSet& set,
                             const SettingsFor& settings_for, const Eigen::Ref<const VectorX>& q,
                             const Eigen::Ref<const VectorX>& v, const Eigen::Ref<const VectorX>& tau,
                             const Eigen::Ref<const VectorX>& added_inertia, const ProbeOptions& options) {
  const Model& model = set.model();
  std::vector<Candidate> all;
  for (const std::string& name : names) {
    const SolverInfo* info = findSolver(name);
    if (info == nullptr || info->capabilities.soft) continue;
    Candidate c{info, nullptr, VectorX::Zero(model.nv), VectorX::Zero(set.dimension()), 1, 0, {}, {}};
    c.timing.solver = name;
    c.timing.iterative = info->capabilities.iterative;
    SolverSettings s = settings_for(*info);
    if (c.timing.iterative) s.warm_start = false;  // every timed solve starts cold
    try {
      c.solver = info->make(set, s);
      c.solver->setAddedInertia(added_inertia);
      // Untimed first solve: the accuracy filter, and the batch size.
      const Clock::time_point start = Clock::now();
      const SolveStats stats = c.solver->solve(q, v, tau, {}, c.vdot, c.lambda);
      const double us = std::max(elapsedUs(start), 0.01);
      c.batch = std::clamp(static_cast<int>(options.batch_us / us), 1, 1000);
      c.timing.iterations = stats.iterations;
      if (!c.vdot.allFinite()) c.timing.excluded = "non-finite v̇";
      else if (c.timing.iterative && !stats.converged) c.timing.excluded = "did not converge to the tolerance";
    } catch (const ModelError& e) {
      c.timing.excluded = e.message();
    }
    all.push_back(std::move(c));
  }
  // Iterative results must agree with a direct solver's v̇ (lcaba at too large
  // a μ converges in ‖J v̇ - k‖ yet drifts in v̇: paper 001 Fig. 11).
  const Candidate* direct = nullptr;
  for (const auto& c : all) {
    if (c.timing.excluded.empty() && !c.timing.iterative) {
      direct = &c;
      break;
    }
  }
  if (direct != nullptr) {
    const double scale = std::max(1.0, direct->vdot.lpNorm<Eigen::Infinity>());
    for (auto& c : all) {
      if (!c.timing.excluded.empty() || !c.timing.iterative) continue;
      const double off = (c.vdot - direct->vdot).lpNorm<Eigen::Infinity>() / scale;
      if (off > 1e-8) {
        char why[96];
        std::snprintf(why, sizeof why, "v̇ off by %.1e from %s", off, direct->timing.solver.c_str());
        c.timing.excluded = why;
      }
    }
  }
  std::vector<Candidate*> timed;
  for (auto& c : all) {
    if (c.timing.excluded.empty()) timed.push_back(&c);
  }
  if (timed.empty()) {
    std::string why;
    for (const auto& c : all) why += (why.empty() ? "" : "; ") + c.timing.solver + ": " + c.timing.excluded;
    throw ModelError(model.source_file, "solver 'auto'",
                     "no exact solver could run this scene's initial state" + (why.empty() ? "" : " (" + why + ")"));
  }
  // Every timed solve sees another q than the solve before it: the joint-space
  // solvers keep M and its factors while q is the same bits (HeldPositionTerms),
  // which a simulation never gives them twice. The variants differ in one
  // coordinate by a few units in the last place: the same state to the physics.
  std::vector<VectorX> fresh_q(kProbeStates, q);
  for (int k = 1; k < kProbeStates; ++k) {
    double& last = fresh_q[static_cast<std::size_t>(k)][q.size() - 1];
    for (int u = 0; u < k; ++u) last = std::nextafter(last, std::numeric_limits<double>::infinity());
  }
  // Interleaved rounds, order rotated per round, within the time budget.
  const Clock::time_point probe_start = Clock::now();
  const std::size_t n = timed.size();
  for (int r = 0; r < options.rounds; ++r) {
    for (std::size_t k = 0; k < n; ++k) {
      Candidate& c = *timed[(k + static_cast<std::size_t>(r)) % n];
      const Clock::time_point start = Clock::now();
      for (int b = 0; b < c.batch; ++b) {
        c.solver->solve(fresh_q[static_cast<std::size_t>(c.solves++ % kProbeStates)], v, tau, {}, c.vdot, c.lambda);
      }
      c.per_round_us.push_back(elapsedUs(start) / c.batch);
    }
    if (r >= 4 && elapsedUs(probe_start) > 1e3 * options.budget_ms) break;
  }
  for (Candidate* c : timed) c->timing.median_us = median(c->per_round_us);

  const Candidate* best_direct = nullptr;
  const Candidate* best_iterative = nullptr;
  for (const Candidate* c : timed) {
    const Candidate*& best = c->timing.iterative ? best_iterative : best_direct;
    if (best == nullptr || c->timing.median_us < best->timing.median_us) best = c;
  }
  SolverSelection out;
  const Candidate* pick = best_direct;
  if (pick == nullptr ||
      (best_iterative != nullptr && best_iterative->timing.median_us < (1.0 - kIterativeMargin) * pick->timing.median_us)) {
    pick = best_iterative;
  }
  out.picked = pick->timing.solver;
  char reason[160];
  if (pick->timing.iterative) {
    std::snprintf(reason, sizeof reason, "fastest of %zu exact solvers (iterative, %d iterations cold in the probe)", n,
                  pick->timing.iterations);
  } else if (best_iterative != nullptr && best_iterative->timing.median_us < pick->timing.median_us) {
    std::snprintf(reason, sizeof reason,
                  "fastest direct solver of %zu exact ones (%s is within %.0f %%; direct solvers are preferred)", n,
                  best_iterative->timing.solver.c_str(), 100.0 * kIterativeMargin);
  } else {
    std::snprintf(reason, sizeof reason, "fastest of %zu exact solvers", n);
  }
  out.reason = reason;
  for (const auto& c : all) out.timings.push_back(c.timing);
  std::stable_sort(out.timings.begin(), out.timings.end(), [](const ProbeTiming& a, const ProbeTiming& b) {
    if (a.excluded.empty() != b.excluded.empty()) return a.excluded.empty();
    return a.excluded.empty() && a.median_us < b.median_us;
  });
  return out;
}

}  // namespace loopsim
