#include <loopsim/bench/mu_sweep.hpp>

#include <algorithm>
#include <cstdio>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/bench/case_grid.hpp>
#include <loopsim/bench/percentile.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {

// v̇ at every state from the reference solver: kkt on full-rank sets; on
// declared-redundant ones (v̇ is still unique, λ is not) prox-ltl driven to
// 1e-14 at μ = 1e3·λ_max, paper 001 Fig. 11's "relatively numerically stable"
// reference (it uses proxLTL at μ = 1e3 on the Allegro hands).
std::vector<VectorX> referenceAccelerations(const Scene& scene, const ConstraintSet& set,
                                            const std::vector<SampledState>& states,
                                            const std::vector<double>& lambda_max, std::string& name) {
  const Model& model = *scene.model;
  std::vector<VectorX> out;
  Data data(model);
  VectorX vdot(model.nv), lambda(set.dimension());
  name = scene.redundant ? "prox-ltl" : "kkt";
  for (std::size_t i = 0; i < states.size(); ++i) {
    SolverSettings settings;
    if (scene.redundant) {
      settings.mu = 1e3 * lambda_max[i];
      settings.tolerance = 1e-14;
      settings.max_iterations = 100000;
      settings.warm_start = false;
    }
    auto solver = makeSolver(name, set, settings);
    const auto& s = states[i];
    passiveForces(model, data, s.q, s.v);
    solver->solve(s.q, s.v, s.tau + data.passive, {}, vdot, lambda);
    out.push_back(vdot);
  }
  return out;
}

}  // namespace

std::vector<MuSweepRow> muSweep(const Scene& scene, const MuSweepOptions& options) {
  if (options.samples < 1) throw ModelError("", "bench", "samples must be >= 1");
  const Model& model = *scene.model;
  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  const std::vector<SampledState> states = sampleStates(scene, set, options.samples, options.seed);
  if (options.penalty_cap && options.relative) throw ModelError("", "bench", "a penalty cap sweep is not relative");
  std::vector<double> lambda_max, constraint_inertia;
  InertiaEigenEstimator estimator(model);
  for (const auto& s : states) lambda_max.push_back(estimator.estimate(s.q, VectorX()).lambda_max);
  if (options.penalty_cap) {
    for (const auto& s : states) constraint_inertia.push_back(estimateConstraintInertia(set, s.q, VectorX()));
  }
  std::string reference_name;
  const std::vector<VectorX> reference = referenceAccelerations(scene, set, states, lambda_max, reference_name);

  std::vector<MuSweepRow> rows;
  Data data(model);
  VectorX tau(model.nv), vdot(model.nv), lambda(set.dimension());
  for (const SolverInfo& info : solverRegistry()) {
    const bool listed = std::find(options.solvers.begin(), options.solvers.end(), info.name) != options.solvers.end();
    if (options.solvers.empty() ? !info.capabilities.iterative || info.capabilities.soft : !listed) continue;
    for (double value : options.values) {
      MuSweepRow row;
      row.case_name = scene.name;
      row.solver = info.name;
      row.value = value;
      row.reference = reference_name;
      row.median_lambda_max = percentile(lambda_max, 0.5);
      std::string missing;
      if (options.penalty_cap && !info.capabilities.penalty_in_inertia) {
        if (!listed) break;  // not asked for: the cap is the penalty solvers' alone
        missing = "penalty_in_inertia (the cap applies to the penalty solvers)";
      }
      if (missing.empty()) missing = missingCapability(info.capabilities, set);
      if (missing.empty() && scene.redundant && !info.capabilities.redundant) missing = "redundant sets";
      if (!missing.empty()) {
        row.note = "needs " + missing;
        rows.push_back(row);
        break;  // one row says why
      }
      std::vector<double> iterations, errors, mus;
      for (std::size_t i = 0; i < states.size(); ++i) {
        SolverSettings settings = scene.solver_settings;
        settings.mu_auto = false;
        if (options.penalty_cap) {
          AutoMuEstimate estimate;
          estimate.lambda_max = lambda_max[i];
          estimate.constraint_inertia = constraint_inertia[i];
          resolvePenaltyMu(estimate, value);
          settings.mu = estimate.mu;
        } else {
          settings.mu = options.relative ? value * lambda_max[i] : value;
        }
        settings.tolerance = options.tolerance;
        settings.max_iterations = options.max_iterations;
        settings.warm_start = false;
        // Built per state: with a relative μ every state has its own, as a
        // simulation bound at that state would.
        auto solver = info.make(set, settings);
        const auto& s = states[i];
        passiveForces(model, data, s.q, s.v);
        tau = s.tau + data.passive;
        const SolveStats stats = solver->solve(s.q, s.v, tau, {}, vdot, lambda);
        iterations.push_back(stats.iterations);
        if (!stats.converged) ++row.unconverged;
        errors.push_back((vdot - reference[i]).norm() / std::max(reference[i].norm(), 1e-300));
        mus.push_back(settings.muValue());
      }
      row.median_mu = percentile(mus, 0.5);
      row.median_iterations = percentile(iterations, 0.5);
      row.max_iterations = *std::max_element(iterations.begin(), iterations.end());
      row.median_error = percentile(errors, 0.5);
      row.max_error = *std::max_element(errors.begin(), errors.end());
      rows.push_back(row);
    }
  }
  return rows;
}

std::string formatMuSweepTable(const std::vector<MuSweepRow>& rows, const MuSweepOptions& options) {
  // One row per (scene, μ), one column per solver; a cell: median/max
  // iterations to tolerance, then the median and max relative v̇ error.
  CaseGrid grid;
  for (const auto& r : rows) {
    char label[96], cell[96];
    if (options.penalty_cap) {
      std::snprintf(label, sizeof label, "%s cap=%.0e (mu~%.1e)", r.case_name.c_str(), r.value, r.median_mu);
    } else if (options.relative) {
      std::snprintf(label, sizeof label, "%s c=%.0e (mu~%.1e)", r.case_name.c_str(), r.value, r.median_mu);
    } else {
      std::snprintf(label, sizeof label, "%s mu=%.0e (c~%.1e)", r.case_name.c_str(), r.value,
                    r.median_lambda_max > 0 ? r.value / r.median_lambda_max : 0.0);
    }
    if (!r.note.empty()) {
      std::snprintf(cell, sizeof cell, "n/a (%s)", r.note.c_str());
    } else {
      const int n = std::snprintf(cell, sizeof cell, "%g/%g it, %.1e/%.1e", r.median_iterations, r.max_iterations,
                                  r.median_error, r.max_error);
      if (r.unconverged > 0) {
        std::snprintf(cell + n, sizeof cell - static_cast<std::size_t>(n), " (%d unconv.)", r.unconverged);
      }
    }
    if (r.note.empty()) grid.set(label, r.solver, cell);
  }
  std::string out = grid.format();
  for (const auto& r : rows) {
    if (!r.note.empty()) out += r.case_name + ": " + r.solver + " skipped: " + r.note + "\n";
  }
  if (!rows.empty()) {
    char line[256];
    std::snprintf(line, sizeof line, "%s: median lambda_max(M) %.4g; reference %s\n", rows.front().case_name.c_str(),
                  rows.front().median_lambda_max, rows.front().reference.c_str());
    out += line;
  }
  out += "cells: median/max iterations to tolerance (cold start), median/max |vdot - vdot_ref| / |vdot_ref| (paper 001\n"
         "Figs. 10-11); c = mu / lambda_max(M) by power iteration at each state\n";
  if (options.penalty_cap) {
    char line[160];
    std::snprintf(line, sizeof line, "cap: mu = min(%.0e lambda_Lambda, cap lambda_max(M)) at each state (mu: auto's penalty rule)\n",
                  kAutoMuFactorConstraintInertia);
    out += line;
  }
  return out;
}

std::string formatMuSweepCsv(const std::vector<MuSweepRow>& rows) {
  std::string out =
      "case,solver,value,relative_factor,mu,lambda_max,median_iterations,max_iterations,unconverged,median_vdot_error,"
      "max_vdot_error,reference,note\n";
  char line[512];
  for (const auto& r : rows) {
    const double factor = r.median_lambda_max > 0 ? r.median_mu / r.median_lambda_max : 0.0;
    std::snprintf(line, sizeof line, "%s,%s,%.6g,%.6g,%.6g,%.6g,%g,%g,%d,%.6g,%.6g,%s,\"%s\"\n", r.case_name.c_str(),
                  r.solver.c_str(), r.value, factor, r.median_mu, r.median_lambda_max, r.median_iterations,
                  r.max_iterations, r.unconverged, r.median_error, r.max_error, r.reference.c_str(), r.note.c_str());
    out += line;
  }
  return out;
}

}  // namespace loopsim
