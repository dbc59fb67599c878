#include "record/state_evaluation.hpp"

#include "algorithms/configuration.hpp"
#include "algorithms/dynamics.hpp"
#include "model/errors.hpp"
#include "record/csv_writer.hpp"
#include "record/state_columns.hpp"
#include "sim/controller.hpp"
#include "sim/implicit_damping.hpp"
#include "record/recorder.hpp"
#include "parallel/parallel_chunks.hpp"
#include "scene/name_suggestion.hpp"
#include "solvers/registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace loopsim {

namespace {

template <class Columns>
Columns mapStateColumns(const CsvTable& table, const Scene& scene, const ConstraintSet& set, bool tau_default_zero) {
  const Model& model = *scene.model;
  Columns out;
  for (const auto& name : configurationColumns(model)) out.q.push_back(table.requireColumn(name));
  for (const auto& name : velocityColumns(model, "v")) out.v.push_back(table.requireColumn(name));
  const auto tau_names = velocityColumns(model, "tau");
  for (const auto& name : tau_names) out.tau.push_back(table.column(name));
  out.t = table.column("t");

  // Every column is read or knowingly skipped: a misspelt one would otherwise
  // silently be zero.
  std::vector<std::string> readable{"t"};
  for (const auto& names : {configurationColumns(model), velocityColumns(model, "v"), tau_names}) {
    readable.insert(readable.end(), names.begin(), names.end());
  }
  std::vector<std::string> record_outputs = velocityColumns(model, "vdot");
  for (const auto& name : lambdaColumns(set)) record_outputs.push_back(name);
  for (const auto& name : recordStatisticsColumns()) record_outputs.push_back(name);
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& name = table.columns[c];
    if (std::find(readable.begin(), readable.end(), name) != readable.end()) continue;
    if (std::find(record_outputs.begin(), record_outputs.end(), name) != record_outputs.end()) continue;
    throw ModelError(table.file, "line 1, column " + std::to_string(c + 1) + " '" + name + "'",
                     "unknown column" + didYouMean(name, readable) +
                         "; eval reads t, q:…, v:… and tau:… columns of this scene's joints");
  }

  // τ of an actuated joint is an input the user must give or waive explicitly.
  std::string defaulted;
  for (int j : scene.actuated_joints) {
    for (int k = 0; k < model.joint_nv[j]; ++k) {
      const int dof = model.idx_v[j] + k;
      if (out.tau[dof] >= 0) continue;
      if (!tau_default_zero) {
        throw ModelError(table.file, "column '" + tau_names[dof] + "'",
                         "missing for the actuated joint '" + model.joint_names[j] +
                             "'; add it, or pass --tau-default zero to evaluate with tau = 0");
      }
      defaulted += (defaulted.empty() ? "" : ", ") + tau_names[dof];
    }
  }
  if (!defaulted.empty()) spdlog::info("--tau-default zero: tau = 0 for the missing columns {}", defaulted);
  return out;
}

// The scene loader refuses non-unit quaternions; so does eval (a normalised
// copy would be a silent guess at what the user meant).
// Returns the failure message (empty when the quaternions are unit) and names the joint in `where`.
std::string nonUnitQuaternion(const Model& model, const VectorX& q, std::string& where) {
  constexpr double kTolerance = 1e-6;
  for (int j = 1; j < model.nbodies(); ++j) {
    const JointType type = model.joint_types[j];
    if (type != JointType::Spherical && type != JointType::Floating) continue;
    const int first = model.idx_q[j] + (type == JointType::Floating ? 3 : 0);
    const double norm = q.segment<4>(first).norm();
    if (std::abs(norm - 1.0) > kTolerance) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", norm);
      where += ", joint '" + model.joint_names[j] + "'";
      return std::string("quaternion [qx qy qz qw] has norm ") + text + "; it must be unit (to 1e-6)";
    }
  }
  return "";
}

// A record's last row holds the final state with nan step columns (record_row.hpp).
bool isRecordFinalState(const std::vector<double>& row, const std::vector<int>& tau_cols) {
  bool any = false;
  for (int c : tau_cols) {
    if (c < 0) continue;
    if (!std::isnan(row[static_cast<std::size_t>(c)])) return false;
    any = true;
  }
  return any;
}

}  // namespace

StateEvaluation::StateEvaluation(const Scene& scene, const std::filesystem::path& states_csv,
                                 const EvalOptions& options)
    : scene_(scene), constraints_(scene.constraints), states_csv_(states_csv) {
  const Model& model = *scene.model;
  if (!options.stabilization) {
    for (auto& c : constraints_) c.kp.reset(), c.kd.reset();
  }
  set_ = std::make_unique<const ConstraintSet>(model, constraints_, options.stabilization ? scene.time_constant : 0.0);
  solver_name_ = options.solver.empty() ? scene.solver : options.solver;
  settings_ = scene.solver_settings;
  settings_.warm_start = false;  // each state on its own (header): the split cannot change a result
  makeSolver(solver_name_, *set_, settings_);  // refuses an unknown or unfit solver before any work
  // As in a step: with implicit damping the solver sees M + dt·D (the scene's
  // dt, joint damping and controller derivative gains).
  const Controller controller(model, scene.controller, scene.actuated_joints,
                              scene.q0.size() == model.nq ? scene.q0 : neutral(model));
  added_inertia_ = scene.dt * implicitDampingDiagonal(scene, controller);

  table_ = readCsv(states_csv, options.threads);
  cols_ = mapStateColumns<Columns>(table_, scene, *set_, options.tau_default_zero);
  if (cols_.t >= 0) out_columns_.push_back("t");
  for (const auto& name : velocityColumns(model, "vdot")) out_columns_.push_back(name);
  for (const auto& name : lambdaColumns(*set_)) out_columns_.push_back(name);
}

std::vector<std::filesystem::path> StateEvaluation::inputFiles() const {
  std::vector<std::filesystem::path> inputs{states_csv_, scene_.source_file};
  for (const std::string& f : scene_.model_files) inputs.emplace_back(f);
  return inputs;
}

void StateEvaluation::raise(const EvalFailure& failure) const {
  throw ModelError(table_.file, failure.element, failure.message);
}

EvaluatedRows StateEvaluation::evaluate(std::size_t begin, std::size_t end, int threads) const {
  std::vector<EvaluatedRows> parts(static_cast<std::size_t>(threads));
  forEachChunk(begin, end, threads,
               [&](int k, Chunk chunk) { parts[static_cast<std::size_t>(k)] = evaluatePart(chunk.begin, chunk.end); });
  // Joined in input order; the first part that failed holds the first failing row.
  EvaluatedRows all;
  for (auto& part : parts) {
    for (auto& piece : part.csv) all.csv.push_back(std::move(piece));
    all.count += part.count;
    if (part.failure) {
      all.failure = std::move(part.failure);
      break;
    }
  }
  return all;
}

// One thread's rows: its own solver, workspace and vectors; it reads only the
// shared const model, constraint set and table.
EvaluatedRows StateEvaluation::evaluatePart(std::size_t begin, std::size_t end) const {
  const Model& model = *scene_.model;
  auto solver = makeSolver(solver_name_, *set_, settings_);
  solver->setAddedInertia(added_inertia_);
  Data data(model);
  VectorX q(model.nq), v(model.nv), tau(model.nv), vdot(model.nv), lambda(set_->dimension());
  std::vector<double> out(out_columns_.size());
  EvaluatedRows result;
  std::string& csv = result.csv.emplace_back();
  csv.reserve((end - begin) * out.size() * 24);
  for (std::size_t r = begin; r < end; ++r) {
    const auto& row = table_.rows[r];
    for (int k = 0; k < model.nq; ++k) q[k] = row[static_cast<std::size_t>(cols_.q[static_cast<std::size_t>(k)])];
    for (int k = 0; k < model.nv; ++k) {
      v[k] = row[static_cast<std::size_t>(cols_.v[static_cast<std::size_t>(k)])];
      const int tc = cols_.tau[static_cast<std::size_t>(k)];
      tau[k] = tc >= 0 ? row[static_cast<std::size_t>(tc)] : 0.0;
    }
    std::string line = "line " + std::to_string(table_.line_numbers[r]);
    if (isRecordFinalState(row, cols_.tau)) {
      spdlog::info("{}: {}: the record's final state (tau is nan: no step follows it) is not evaluated", table_.file,
                   line);
      continue;
    }
    auto fail = [&](std::string message) {
      result.failure = EvalFailure{r, std::move(line), std::move(message)};
      return result;
    };
    if (!q.allFinite() || !v.allFinite() || !tau.allFinite()) return fail("state has a NaN or Inf value");
    if (std::string message = nonUnitQuaternion(model, q, line); !message.empty()) return fail(std::move(message));
    passiveForces(model, data, q, v);
    tau += data.passive;
    solver->solve(q, v, tau, {}, vdot, lambda);
    if (!vdot.allFinite() || !lambda.allFinite()) {
      return fail("the dynamics at this state are not finite (vdot or lambda is NaN or Inf); "
                  "check its values (velocities of 1e300 overflow)");
    }
    std::size_t c = 0;
    if (cols_.t >= 0) out[c++] = row[static_cast<std::size_t>(cols_.t)];
    for (int k = 0; k < model.nv; ++k) out[c++] = vdot[k];
    for (int k = 0; k < set_->dimension(); ++k) out[c++] = lambda[k];
    CsvWriter::formatRow(out, csv);
    ++result.count;
  }
  return result;
}

long evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); };
  auto start = Clock::now();
  const StateEvaluation evaluation(scene, states_csv, options);
  // The output is checked (and its temporary opened) before the work.
  CsvWriter writer(out_csv, evaluation.outputColumns(), options.overwrite, evaluation.inputFiles());
  spdlog::debug("eval: read {} rows in {:.3f} s", evaluation.rowCount(), seconds(start));
  start = Clock::now();
  const EvaluatedRows rows = evaluation.evaluate(0, evaluation.rowCount(), options.threads);
  if (rows.failure) evaluation.raise(*rows.failure);
  spdlog::debug("eval: evaluated {} states on {} threads in {:.3f} s", rows.count, options.threads, seconds(start));
  start = Clock::now();
  for (const std::string& piece : rows.csv) writer.writeRows(piece);
  writer.commit();
  spdlog::debug("eval: wrote the output in {:.3f} s", seconds(start));
  return rows.count;
}

}  // namespace loopsim
