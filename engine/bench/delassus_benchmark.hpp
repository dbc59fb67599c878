#pragma once
// The Delassus table of `loopsim bench` and `loopsim delassus --bench`: times
// J M⁻¹ Jᵀ at q (engine/delassus) by each algorithm on configurations sampled
// like the solver benchmark's, with unconstrained ABA timed the same way as
// the floor (solver "aba"). Results use BenchResult with mode "delassus".
#include <string>
#include <vector>

#include <loopsim/bench/solver_benchmark.hpp>

namespace loopsim {

/// `algorithms` empty: every algorithm that supports the scene's set.
std::vector<BenchResult> benchmarkDelassus(const Scene& scene, const BenchOptions& options,
                                           const std::vector<std::string>& algorithms = {});

/// The damped inverse (J M⁻¹ Jᵀ + μ⁻¹I)⁻¹ at μ = `damping` (DampedDelassusInverse)
/// by each algorithm and by `pv-osim-fast`, timed as benchmarkDelassus (same
/// configurations, ABA as the floor, columns interleaved), each with its
/// deviation from the dense route's. Results use mode "damped". `algorithms`
/// empty: every algorithm of delassusAlgorithms() that takes the set, and pv-osim-fast.
std::vector<BenchResult> benchmarkDampedDelassus(const Scene& scene, const BenchOptions& options, double damping,
                                                 const std::vector<std::string>& algorithms = {});

/// One row per case, one column per algorithm: median µs and the ratio to ABA.
std::string formatDelassusTable(const std::vector<BenchResult>& results);

}  // namespace loopsim
