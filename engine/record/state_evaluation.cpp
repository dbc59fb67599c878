#include "record/state_evaluation.hpp"

#include "algorithms/configuration.hpp"
#include "algorithms/dynamics.hpp"
#include "model/errors.hpp"
#include "record/csv_reader.hpp"
#include "record/csv_writer.hpp"
#include "record/state_columns.hpp"
#include "sim/controller.hpp"
#include "sim/implicit_damping.hpp"
#include "solvers/registry.hpp"

namespace loopsim {

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
  std::vector<int> q_cols, v_cols, tau_cols;
  for (const auto& name : configurationColumns(model)) q_cols.push_back(table.requireColumn(name));
  for (const auto& name : velocityColumns(model, "v")) v_cols.push_back(table.requireColumn(name));
  for (const auto& name : velocityColumns(model, "tau")) tau_cols.push_back(table.column(name));
  const int t_col = table.column("t");

  std::vector<std::string> out_columns;
  if (t_col >= 0) out_columns.push_back("t");
  const auto vdot_names = velocityColumns(model, "vdot");
  const auto lambda_names = lambdaColumns(set);
  out_columns.insert(out_columns.end(), vdot_names.begin(), vdot_names.end());
  out_columns.insert(out_columns.end(), lambda_names.begin(), lambda_names.end());
  CsvWriter writer(out_csv, out_columns, options.overwrite);

  Data data(model);
  VectorX q(model.nq), v(model.nv), tau(model.nv), vdot(model.nv), lambda(set.dimension());
  std::vector<double> out(out_columns.size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    for (int k = 0; k < model.nq; ++k) q[k] = row[static_cast<std::size_t>(q_cols[static_cast<std::size_t>(k)])];
    for (int k = 0; k < model.nv; ++k) {
      v[k] = row[static_cast<std::size_t>(v_cols[static_cast<std::size_t>(k)])];
      const int tc = tau_cols[static_cast<std::size_t>(k)];
      tau[k] = tc >= 0 ? row[static_cast<std::size_t>(tc)] : 0.0;
    }
    if (!q.allFinite() || !v.allFinite() || !tau.allFinite()) {
      throw ModelError(table.file, "line " + std::to_string(r + 2), "state has a NaN or Inf value");
    }
    passiveForces(model, data, q, v);
    tau += data.passive;
    solver->solve(q, v, tau, {}, vdot, lambda);
    std::size_t c = 0;
    if (t_col >= 0) out[c++] = row[static_cast<std::size_t>(t_col)];
    for (int k = 0; k < model.nv; ++k) out[c++] = vdot[k];
    for (int k = 0; k < set.dimension(); ++k) out[c++] = lambda[k];
    writer.writeRow(out);
  }
  writer.commit();
  return static_cast<long>(table.rows.size());
}

}  // namespace loopsim
