#include <loopsim/sim/solver_comparison.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

double ComparedSolver::recentMedianSolveUs() const {
  if (recent_count_ == 0) return 0.0;
  std::vector<double> values(recent_solve_us_.begin(), recent_solve_us_.begin() + static_cast<std::ptrdiff_t>(recent_count_));
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

ComparedRunName parseComparedRunName(const std::string& name) {
  ComparedRunName run;
  const auto plus = name.find('+');
  run.solver = name.substr(0, plus);
  if (plus == std::string::npos) return run;
  run.contact_text = name.substr(plus + 1);
  ContactSolverKind kind;
  if (parseContactSolver(run.contact_text, kind)) run.contact = kind;
  return run;
}

std::string SolverComparison::defaultReference(const std::vector<std::string>& solvers) {
  for (const std::string& name : solvers) {
    if (parseComparedRunName(name).solver == "kkt") return name;
  }
  for (const std::string& name : solvers) {
    const SolverInfo* info = findSolver(parseComparedRunName(name).solver);
    if (info != nullptr && !info->capabilities.soft) return name;
  }
  return solvers.empty() ? std::string() : solvers.front();
}

SolverComparison::SolverComparison(const Scene& scene, const std::vector<std::string>& solvers,
                                   const ComparisonOptions& options)
    : options_(options), dt_(scene.dt) {
  const std::string file = scene.source_file;
  const int k = static_cast<int>(solvers.size());
  if (k < kMinSolvers || k > kMaxSolvers) {
    throw ModelError(file, "solvers", "compare " + std::to_string(kMinSolvers) + " to " + std::to_string(kMaxSolvers) +
                                          " solvers (got " + std::to_string(k) + ")");
  }
  for (std::size_t i = 0; i < solvers.size(); ++i) {
    if (std::find(solvers.begin(), solvers.begin() + static_cast<std::ptrdiff_t>(i), solvers[i]) !=
        solvers.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw ModelError(file, "solvers", "'" + solvers[i] + "' is listed twice");
    }
    const ComparedRunName run = parseComparedRunName(solvers[i]);
    if (!run.contact_text.empty() && !run.contact) {
      throw ModelError(file, "solvers", "'" + solvers[i] + "': '" + run.contact_text +
                                            "' is not a contact solver (admm, pgs)");
    }
    requireSolver(scene.solverProblem(), run.solver);  // unknown (nearest name), missing capability, rank
  }
  if (!(options.divergence_threshold > 0.0)) throw ModelError(file, "compare", "the divergence threshold must be > 0");
  if (options.sample_every < 1) throw ModelError(file, "compare", "sample_every must be >= 1");
  if (options_.reference.empty()) options_.reference = defaultReference(solvers);
  const auto ref = std::find(solvers.begin(), solvers.end(), options_.reference);
  if (ref == solvers.end()) {
    std::string list;
    for (const std::string& s : solvers) list += (list.empty() ? "" : ", ") + s;
    throw ModelError(file, "reference", "'" + options_.reference + "' is not one of the compared solvers (" + list + ")");
  }
  reference_ = static_cast<int>(ref - solvers.begin());

  const std::size_t recent = options.recent_steps > 0
                                 ? options.recent_steps
                                 : static_cast<std::size_t>(std::clamp(std::llround(1.0 / scene.dt), 1LL, 100000LL));
  solvers_.reserve(solvers.size());
  for (const std::string& name : solvers) {
    const ComparedRunName run = parseComparedRunName(name);
    Scene copy = scene;
    copy.solver = run.solver;
    if (run.contact) copy.contact_solver = *run.contact;
    ComparedSolver entry;
    entry.name = name;
    entry.simulation = std::make_unique<Simulation>(copy);
    if (run.contact && entry.simulation->unilateralStep() == nullptr) {
      throw ModelError(file, "solvers", "'" + name + "': the scene has neither contacts nor joint limits for a contact solver");
    }
    entry.energy_watch = std::make_unique<EnergyGrowthWatch>(*entry.simulation);
    entry.recent_solve_us_.assign(recent, 0.0);
    solvers_.push_back(std::move(entry));
  }
  difference_ = VectorX::Zero(solvers_.front().simulation->model().nv);
}

bool SolverComparison::anyRunning() const {
  return std::any_of(solvers_.begin(), solvers_.end(), [](const ComparedSolver& s) { return s.running(); });
}

bool SolverComparison::step() {
  if (!anyRunning()) return false;
  for (std::size_t i = 0; i < solvers_.size(); ++i) {
    ComparedSolver& s = solvers_[i];
    if (!s.running()) continue;
    Simulation& sim = *s.simulation;
    if (before_step) before_step(i, sim);
    const bool ok = sim.step();
    const StepRecord& record = sim.lastStep();
    s.recent_solve_us_[s.recent_next_] = record.solve_us;
    s.recent_next_ = (s.recent_next_ + 1) % s.recent_solve_us_.size();
    s.recent_count_ = std::min(s.recent_count_ + 1, s.recent_solve_us_.size());
    s.window_solve_us_ += record.solve_us;
    ++s.window_steps_;
    if (!ok) {
      s.failure = sim.divergence()->message();
      s.failure_time = sim.divergence()->time;
    } else if (const std::optional<std::string> energy = s.energy_watch->check(sim)) {
      s.failure = *energy;
      s.failure_time = sim.time();
    }
  }
  ++steps_;
  compare();
  return anyRunning();
}

void SolverComparison::advanceTo(long steps) {
  while (steps_ < steps && step()) {
  }
}

void SolverComparison::restore(std::span<const SimulationSnapshot> states) {
  const std::string file = reference().simulation->scene().source_file;
  if (states.size() != 1 && states.size() != solvers_.size()) {
    throw ModelError(file, "compare", "restore: " + std::to_string(states.size()) + " states for " +
                                          std::to_string(solvers_.size()) + " solvers");
  }
  const long step = states.front().steps;
  for (const SimulationSnapshot& s : states) {
    if (s.steps != step) throw ModelError(file, "compare", "restore: the states are not of one time (lockstep)");
  }
  const double t = states.front().time;
  for (std::size_t i = 0; i < solvers_.size(); ++i) {
    ComparedSolver& s = solvers_[i];
    // Stopped at or before t: it has no state at t, and stays stopped.
    if (!s.running() && !(t < s.failure_time)) continue;
    s.simulation->restore(states.size() == 1 ? states.front() : states[i]);
    s.energy_watch = std::make_unique<EnergyGrowthWatch>(*s.simulation);  // no growth streak from the dropped future
    s.failure.clear();
    s.failure_time = std::numeric_limits<double>::quiet_NaN();
    if (s.first_exceeded_time > t) s.first_exceeded_time = std::numeric_limits<double>::quiet_NaN();
    while (!s.series.empty() && s.series.back().time > t) s.series.pop_back();
    s.window_divergence_ = s.window_solve_us_ = 0.0;
    s.window_steps_ = 0;
  }
  steps_ = step;
  // The divergences at the restored state (compare() books them as a step's would, without a sample).
  for (ComparedSolver& s : solvers_) s.divergence = 0.0;
  ComparedSolver& ref = solvers_[static_cast<std::size_t>(reference_)];
  for (ComparedSolver& s : solvers_) {
    if (&s == &ref || !ref.running() || s.simulation->time() != time()) continue;
    difference(ref.simulation->model(), ref.simulation->q(), s.simulation->q(), difference_);
    s.divergence = difference_.norm();
  }
}

void SolverComparison::compare() {
  ComparedSolver& ref = solvers_[static_cast<std::size_t>(reference_)];
  const Model& model = ref.simulation->model();
  // Divergences compare states at the same time: a stopped solver (or a stopped reference) has none after it stopped.
  const bool reference_valid = ref.running();
  const bool sample = steps_ % options_.sample_every == 0;
  for (ComparedSolver& s : solvers_) {
    // A solver that stopped at this step may hold a NaN state, or the one before (divergence found before integrating).
    const bool comparable = reference_valid && s.simulation->time() == time();
    if (comparable && s.simulation->q().allFinite()) {
      // The reference against itself is 0 exactly (q ⊖ q of a quaternion can leave ~1e-50).
      if (&s == &ref) difference_.setZero();
      else difference(model, ref.simulation->q(), s.simulation->q(), difference_);
      s.divergence = difference_.norm();
      s.max_divergence = std::max(s.max_divergence, s.divergence);
      s.window_divergence_ = std::max(s.window_divergence_, s.divergence);
      if (s.divergence > options_.divergence_threshold && std::isnan(s.first_exceeded_time)) {
        s.first_exceeded_time = time();
      }
    } else if (!reference_valid) {
      s.window_divergence_ = std::numeric_limits<double>::quiet_NaN();
    }
    if ((sample || !s.running()) && s.window_steps_ > 0) {  // a stopped solver: its last window
      s.series.push_back({time(), s.window_divergence_, s.window_solve_us_ / static_cast<double>(s.window_steps_)});
      s.window_divergence_ = s.window_solve_us_ = 0.0;
      s.window_steps_ = 0;
    }
  }
}

}  // namespace loopsim
