#pragma once
// `loopsim bench --mu-sweep`: convergence of the proximal and augmented-
// Lagrangian solvers against μ (paper 001 §VI-D, Figs. 10-11). For each μ,
// every solver is run cold-started to the tolerance on the same sampled
// consistent states: the iterations it needs fall as μ grows (Fig. 10's
// trend) until round-off in μ·KᵀK (lcaba, constrained-aba) makes v̇ drift
// from the reference (Fig. 11). A table of counts and errors, not a timing.
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

struct MuSweepOptions {
  int samples = 20;
  unsigned seed = 1;
  double tolerance = 1e-10;  // on ‖J v̇ - k‖∞, cold start
  int max_iterations = 1000;
  /// μ values, or factors c with μ = c·λ_max(M(q)) per state when relative.
  std::vector<double> values = {1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
  bool relative = false;
  /// The values are caps C on mu: auto's penalty rule instead, μ = min(c_Λ·λ_Λ(q),
  /// C·λ_max(M(q))) per state (resolvePenaltyMu): how kAutoMuPenaltyCap was
  /// chosen. Only the penalty solvers (lcaba, constrained-aba) are swept.
  bool penalty_cap = false;
  std::vector<std::string> solvers;  // empty: every exact iterative solver that takes the scene
};

struct MuSweepRow {
  std::string case_name, solver;
  double value = 0.0;               // μ, c when relative, the cap C with penalty_cap
  double median_mu = 0.0;           // μ used (median over states when relative)
  double median_iterations = 0.0, max_iterations = 0.0;
  int unconverged = 0;              // states that hit max_iterations
  double median_error = 0.0, max_error = 0.0;  // ‖v̇ - v̇_ref‖ / ‖v̇_ref‖ (paper 001 Fig. 11)
  std::string reference;            // "kkt", or "prox-ltl" (μ = 1e3·λ_max, tol 1e-14) on redundant sets
  double median_lambda_max = 0.0;   // power-iteration λ_max(M) over the states
  std::string note;                 // why a solver was skipped
};

std::vector<MuSweepRow> muSweep(const Scene& scene, const MuSweepOptions& options);
std::string formatMuSweepTable(const std::vector<MuSweepRow>& rows, const MuSweepOptions& options);
std::string formatMuSweepCsv(const std::vector<MuSweepRow>& rows);

}  // namespace loopsim
