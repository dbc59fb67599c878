#include "record/state_evaluation.hpp"

#include "algorithms/configuration.hpp"
#include "algorithms/dynamics.hpp"
#include "model/errors.hpp"
#include "record/csv_reader.hpp"
#include "record/csv_writer.hpp"
#include "record/state_columns.hpp"
#include "sim/controller.hpp"
#include "sim/implicit_damping.hpp"
#include "record/recorder.hpp"
#include "scene/name_suggestion.hpp"
#include "solvers/registry.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace loopsim {

namespace {

// Where each quantity is in the input table.
struct StateColumns {
  std::vector<int> q, v, tau;  // tau: -1 when absent (τ = 0)
  int t = -1;
};

StateColumns mapStateColumns(const CsvTable& table, const Scene& scene, const ConstraintSet& set,
                             bool tau_default_zero) {
  const Model& model = *scene.model;
  StateColumns out;
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
void requireUnitQuaternions(const Model& model, const VectorX& q, const CsvTable& table, const std::string& line) {
  constexpr double kTolerance = 1e-6;
  for (int j = 1; j < model.nbodies(); ++j) {
    const JointType type = model.joint_types[j];
    if (type != JointType::Spherical && type != JointType::Floating) continue;
    const int first = model.idx_q[j] + (type == JointType::Floating ? 3 : 0);
    const double norm = q.segment<4>(first).norm();
    if (std::abs(norm - 1.0) > kTolerance) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", norm);
      throw ModelError(table.file, line + ", joint '" + model.joint_names[j] + "'",
                       std::string("quaternion [qx qy qz qw] has norm ") + text + "; it must be unit (to 1e-6)");
    }
  }
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

long evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options) {
  const Model& model = *scene.model;
  std::vector<Constraint> constraints = scene.constraints;
  if (!options.stabilization) {
    for (auto& c : constraints) c.kp.reset(), c.kd.reset();
  }
  const ConstraintSet set(model, constraints, options.stabilization ? scene.time_constant : 0.0);
  const std::string solver_name = options.solver.empty() ? scene.solver : options.solver;
  auto solver = makeSolver(solver_name, set, scene.solver_settings);
  // As in a step: with implicit damping the solver sees M + dt·D (the scene's
  // dt, joint damping and controller derivative gains).
  const Controller controller(model, scene.controller, scene.actuated_joints,
                              scene.q0.size() == model.nq ? scene.q0 : neutral(model));
  solver->setAddedInertia(scene.dt * implicitDampingDiagonal(scene, controller));

  const CsvTable table = readCsv(states_csv);
  const StateColumns cols = mapStateColumns(table, scene, set, options.tau_default_zero);
  const std::vector<int>& q_cols = cols.q;
  const std::vector<int>& v_cols = cols.v;
  const std::vector<int>& tau_cols = cols.tau;
  const int t_col = cols.t;

  std::vector<std::string> out_columns;
  if (t_col >= 0) out_columns.push_back("t");
  const auto vdot_names = velocityColumns(model, "vdot");
  const auto lambda_names = lambdaColumns(set);
  out_columns.insert(out_columns.end(), vdot_names.begin(), vdot_names.end());
  out_columns.insert(out_columns.end(), lambda_names.begin(), lambda_names.end());
  std::vector<std::filesystem::path> inputs{states_csv, scene.source_file};
  for (const std::string& f : scene.model_files) inputs.emplace_back(f);
  CsvWriter writer(out_csv, out_columns, options.overwrite, inputs);

  Data data(model);
  VectorX q(model.nq), v(model.nv), tau(model.nv), vdot(model.nv), lambda(set.dimension());
  std::vector<double> out(out_columns.size());
  long evaluated = 0;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    for (int k = 0; k < model.nq; ++k) q[k] = row[static_cast<std::size_t>(q_cols[static_cast<std::size_t>(k)])];
    for (int k = 0; k < model.nv; ++k) {
      v[k] = row[static_cast<std::size_t>(v_cols[static_cast<std::size_t>(k)])];
      const int tc = tau_cols[static_cast<std::size_t>(k)];
      tau[k] = tc >= 0 ? row[static_cast<std::size_t>(tc)] : 0.0;
    }
    const std::string line = "line " + std::to_string(table.line_numbers[r]);
    if (isRecordFinalState(row, tau_cols)) {
      spdlog::info("{}: {}: the record's final state (tau is nan: no step follows it) is not evaluated", table.file,
                   line);
      continue;
    }
    if (!q.allFinite() || !v.allFinite() || !tau.allFinite()) {
      throw ModelError(table.file, line, "state has a NaN or Inf value");
    }
    requireUnitQuaternions(model, q, table, line);
    passiveForces(model, data, q, v);
    tau += data.passive;
    solver->solve(q, v, tau, {}, vdot, lambda);
    if (!vdot.allFinite() || !lambda.allFinite()) {
      throw ModelError(table.file, line, "the dynamics at this state are not finite (vdot or lambda is NaN or Inf); "
                                         "check its values (velocities of 1e300 overflow)");
    }
    std::size_t c = 0;
    if (t_col >= 0) out[c++] = row[static_cast<std::size_t>(t_col)];
    for (int k = 0; k < model.nv; ++k) out[c++] = vdot[k];
    for (int k = 0; k < set.dimension(); ++k) out[c++] = lambda[k];
    writer.writeRow(out);
    ++evaluated;
  }
  writer.commit();
  return evaluated;
}

}  // namespace loopsim
