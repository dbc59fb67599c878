#include <loopsim/record/record_row.hpp>

#include <algorithm>
#include <limits>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Full layout (every group); the builder writes a selection of it.
// state part: t q v | step part: tau vdot lambda | stats: state violations and energy, step iterations and
// residual | timing.
const std::vector<std::string> kStateStats = {"position_violation", "velocity_violation", "kinetic_energy",
                                              "potential_energy",   "applied_work",       "damping_work",
                                              "energy_balance"};
const std::vector<std::string> kStepStats = {"iterations", "solver_residual"};
const std::vector<std::string> kTiming = {"timing:solve_us"};

}  // namespace

const std::vector<std::string>& recordColumnGroups() {
  static const std::vector<std::string> groups = {"q", "v", "tau", "vdot", "lambda", "perturbation", "stats", "timing"};
  return groups;
}

const std::vector<std::string>& defaultRecordGroups() {
  // Every group: `run --record` and the GUI's records share one format (the
  // perturbation columns are 0 when nothing pushed the robot).
  return recordColumnGroups();
}

const std::vector<std::string>& perturbationColumns() {
  static const std::vector<std::string> columns = {"perturbation:body", "perturbation:nx", "perturbation:ny",
                                                   "perturbation:nz",   "perturbation:fx", "perturbation:fy",
                                                   "perturbation:fz"};
  return columns;
}

std::vector<std::string> normalizedRecordGroups(const std::vector<std::string>& groups, const std::string& option) {
  const auto& all = recordColumnGroups();
  if (groups.empty()) return defaultRecordGroups();
  for (const std::string& g : groups) {
    if (std::find(all.begin(), all.end(), g) == all.end()) {
      std::string list;
      for (const auto& a : all) list += (list.empty() ? "" : ", ") + a;
      throw ModelError("", option, "unknown column group '" + g + "'" + didYouMean(g, all) + " (groups: " + list + ")");
    }
  }
  std::vector<std::string> out;
  for (const std::string& a : all) {
    if (std::find(groups.begin(), groups.end(), a) != groups.end()) out.push_back(a);
  }
  return out;
}

RecordRowBuilder::RecordRowBuilder(const Simulation& sim, const std::vector<std::string>& groups) {
  const Model& model = sim.model();
  const std::vector<std::string> wanted = normalizedRecordGroups(groups, "--record-columns");
  auto has = [&](const char* g) { return std::find(wanted.begin(), wanted.end(), g) != wanted.end(); };

  std::vector<std::string> full_names{"t"};
  std::vector<bool> keep{true};
  auto add = [&](const std::vector<std::string>& names, bool selected) {
    for (const auto& n : names) {
      full_names.push_back(n);
      keep.push_back(selected);
    }
  };
  add(configurationColumns(model), has("q"));
  add(velocityColumns(model, "v"), has("v"));
  step_begin_ = full_names.size();
  add(velocityColumns(model, "tau"), has("tau"));
  add(velocityColumns(model, "vdot"), has("vdot"));
  add(lambdaColumns(sim.constraints()), has("lambda"));
  add(perturbationColumns(), has("perturbation"));
  add(kStateStats, has("stats"));
  step_stats_begin_ = full_names.size();
  add(kStepStats, has("stats"));
  add(kTiming, has("timing"));

  full_.assign(full_names.size(), 0.0);
  for (std::size_t i = 0; i < full_names.size(); ++i) {
    if (!keep[i]) continue;
    selected_.push_back(static_cast<int>(i));
    columns_.push_back(full_names[i]);
  }
  first_timing_ = columns_.size();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (columns_[c].rfind("timing:", 0) == 0) {
      first_timing_ = c;
      break;
    }
  }
  row_.assign(columns_.size(), 0.0);
}

void RecordRowBuilder::beforeStep(const Simulation& sim) {
  std::size_t c = 0;
  full_[c++] = sim.time();
  for (Eigen::Index i = 0; i < sim.q().size(); ++i) full_[c++] = sim.q()[i];
  for (Eigen::Index i = 0; i < sim.v().size(); ++i) full_[c++] = sim.v()[i];
  // The state's statistics sit after the step's vectors.
  auto maxAbs = [](const VectorX& x) { return x.size() > 0 ? x.lpNorm<Eigen::Infinity>() : 0.0; };
  const EnergyTerms& e = sim.energy();
  std::size_t s = step_stats_begin_ - kStateStats.size();
  for (double x : {maxAbs(sim.constraintError()), maxAbs(sim.constraintVelocityError()), e.kinetic, e.potential,
                   e.applied_work, e.damping_work, e.balance()}) {
    full_[s++] = x;
  }
}

void RecordRowBuilder::afterStep(const Simulation& sim) {
  std::size_t c = step_begin_;
  for (const VectorX* x : {&sim.appliedTorque(), &sim.vdot(), &sim.lambda()}) {
    for (Eigen::Index i = 0; i < x->size(); ++i) full_[c++] = (*x)[i];
  }
  // The wrench this step applied (the simulation keeps it until it changes).
  const Force& w = sim.perturbation();
  full_[c++] = static_cast<double>(sim.perturbedBody());
  for (double x : {w.n.x(), w.n.y(), w.n.z(), w.f.x(), w.f.y(), w.f.z()}) full_[c++] = x;
  const StepRecord& step = sim.lastStep();
  std::size_t s = step_stats_begin_;
  full_[s++] = static_cast<double>(step.iterations);
  full_[s++] = step.solver_residual;
  full_[s++] = step.solve_us;
  select();
}

void RecordRowBuilder::finalState(const Simulation& sim) {
  beforeStep(sim);
  const std::size_t state_stats_begin = step_stats_begin_ - kStateStats.size();
  std::fill(full_.begin() + static_cast<std::ptrdiff_t>(step_begin_),
            full_.begin() + static_cast<std::ptrdiff_t>(state_stats_begin), kNaN);
  std::fill(full_.begin() + static_cast<std::ptrdiff_t>(step_stats_begin_), full_.end(), kNaN);
  select();
}

void RecordRowBuilder::select() {
  for (std::size_t k = 0; k < selected_.size(); ++k) row_[k] = full_[static_cast<std::size_t>(selected_[k])];
}

}  // namespace loopsim
