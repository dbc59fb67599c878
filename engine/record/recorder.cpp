#include "record/recorder.hpp"

#include "record/record_summary.hpp"
#include "record/state_columns.hpp"

namespace loopsim {

std::filesystem::path summaryPathFor(const std::filesystem::path& csv_path) {
  std::filesystem::path out = csv_path;
  if (out.extension() == ".csv") return out.replace_extension(".json");
  out += ".json";
  return out;
}

std::vector<std::string> recordColumns(const Simulation& simulation) {
  const Model& model = simulation.model();
  std::vector<std::string> columns{"t"};
  auto append = [&](const std::vector<std::string>& names) { columns.insert(columns.end(), names.begin(), names.end()); };
  append(configurationColumns(model));
  append(velocityColumns(model, "v"));
  append(velocityColumns(model, "tau"));
  append(velocityColumns(model, "vdot"));
  append(lambdaColumns(simulation.constraints()));
  append({"position_violation", "velocity_violation", "kinetic_energy", "potential_energy", "applied_work",
          "damping_work", "energy_balance", "solve_us", "iterations", "solver_residual"});
  return columns;
}

SimulationRecorder::SimulationRecorder(const Simulation& simulation, const std::filesystem::path& csv_path,
                                       bool overwrite)
    : summary_path_(summaryPathFor(csv_path)), overwrite_(overwrite) {
  requireWritable(summary_path_, overwrite);
  const auto columns = recordColumns(simulation);
  writer_ = std::make_unique<CsvWriter>(csv_path, columns, overwrite);
  row_.assign(columns.size(), 0.0);
}

std::filesystem::path SimulationRecorder::summaryPath() const { return summary_path_; }

bool SimulationRecorder::step(Simulation& sim) {
  // The state before the step, and its violation and energy.
  std::size_t c = 0;
  auto put = [&](const VectorX& x) {
    for (Eigen::Index i = 0; i < x.size(); ++i) row_[c++] = x[i];
  };
  auto maxAbs = [](const VectorX& x) { return x.size() > 0 ? x.lpNorm<Eigen::Infinity>() : 0.0; };
  row_[c++] = sim.time();
  put(sim.q());
  put(sim.v());
  const double position_violation = maxAbs(sim.constraintError());
  const double velocity_violation = maxAbs(sim.constraintVelocityError());
  const EnergyTerms energy = sim.energy();

  const bool ok = sim.step();

  put(sim.appliedTorque());
  put(sim.vdot());
  put(sim.lambda());
  const StepRecord& step = sim.lastStep();
  for (double x : {position_violation, velocity_violation, energy.kinetic, energy.potential, energy.applied_work,
                   energy.damping_work, energy.balance(), step.solve_us, static_cast<double>(step.iterations),
                   step.solver_residual}) {
    row_[c++] = x;
  }
  writer_->writeRow(row_);
  return ok;
}

void SimulationRecorder::finish(const Simulation& simulation, const std::string& command_line) {
  writer_->commit();
  writeRecordSummary(summary_path_, simulation, writer_->finalPath(), command_line, overwrite_);
}

}  // namespace loopsim
