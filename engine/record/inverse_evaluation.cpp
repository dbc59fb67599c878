#include <loopsim/record/inverse_evaluation.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/csv_writer.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/solvers/loops/cluster_rnea.hpp>

namespace loopsim {

std::optional<long> evaluateInverseDynamics(const Scene& scene, const std::filesystem::path& states_csv,
                                            const std::filesystem::path& out_csv, bool overwrite, bool stabilization,
                                            const std::function<bool()>& stop_requested) {
  const Model& model = *scene.model;
  std::vector<Constraint> constraints = scene.constraints;
  if (!stabilization) {
    for (auto& c : constraints) c.kp.reset(), c.kd.reset();
  }
  const ConstraintSet set(model, constraints, stabilization ? scene.time_constant : 0.0);
  ClusterRnea rnea(set, scene.solver_settings.independent_dofs);
  const std::vector<int>& independent = rnea.structure().independentDofIndices();
  const int ny = static_cast<int>(independent.size());

  const CsvTable table = readCsv(states_csv);
  const std::vector<std::string> q_names = configurationColumns(model), v_names = velocityColumns(model, "v");
  const std::vector<std::string> vdot_names = velocityColumns(model, "vdot"), tau_names = velocityColumns(model, "tau");
  std::vector<int> q_cols, v_cols, vdot_cols;
  for (const auto& name : q_names) q_cols.push_back(table.requireColumn(name));
  for (const auto& name : v_names) v_cols.push_back(table.requireColumn(name));
  std::vector<std::string> readable{"t"};
  readable.insert(readable.end(), q_names.begin(), q_names.end());
  readable.insert(readable.end(), v_names.begin(), v_names.end());
  std::vector<std::string> output_columns;
  const int t_col = table.column("t");
  if (t_col >= 0) output_columns.push_back("t");
  for (int dof : independent) {
    const int col = table.column(vdot_names[dof]);
    if (col < 0) {
      throw ModelError(table.file, "column '" + vdot_names[dof] + "'",
                       "missing: eval --inverse needs the acceleration of every independent coordinate");
    }
    vdot_cols.push_back(col);
    readable.push_back(vdot_names[dof]);
    output_columns.push_back(tau_names[dof]);
  }
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& name = table.columns[c];
    if (std::find(readable.begin(), readable.end(), name) != readable.end()) continue;
    const bool dependent = std::find(vdot_names.begin(), vdot_names.end(), name) != vdot_names.end();
    throw ModelError(table.file, "line 1, column " + std::to_string(c + 1) + " '" + name + "'",
                     dependent ? "the acceleration of a dependent coordinate: it follows from the independent ones "
                                 "through the loop (scene key 'independent'); drop the column"
                               : "unknown column" + didYouMean(name, readable) +
                                     "; eval --inverse reads t, q:…, v:… and vdot:… of the independent coordinates");
  }

  CsvWriter writer(out_csv, output_columns, overwrite, {states_csv});
  Data data(model);
  VectorX q(model.nq), v(model.nv), ydd(ny), tau_y(ny), passive_y(ny);
  std::vector<double> out;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    if (r % 256 == 0 && stop_requested && stop_requested()) return std::nullopt;  // the writer removes its temporary
    const std::vector<double>& row = table.rows[r];
    const std::string where = "line " + std::to_string(table.line_numbers[r]);
    for (int i = 0; i < model.nq; ++i) q[i] = row[q_cols[i]];
    for (int i = 0; i < model.nv; ++i) v[i] = row[v_cols[i]];
    for (int i = 0; i < ny; ++i) ydd[i] = row[vdot_cols[i]];
    for (int j = 1; j < model.nbodies(); ++j) {
      const JointType type = model.joint_types[j];
      if (type != JointType::Spherical && type != JointType::Floating) continue;
      const double norm = q.segment<4>(model.idx_q[j] + (type == JointType::Floating ? 3 : 0)).norm();
      if (std::abs(norm - 1.0) > 1e-6) {
        throw ModelError(table.file, where + ", joint '" + model.joint_names[j] + "'",
                         "quaternion [qx qy qz qw] has norm " + std::to_string(norm) + "; it must be unit (to 1e-6)");
      }
    }
    if (!rnea.compute(q, v, ydd, {}, tau_y)) {
      throw ModelError(table.file, where,
                       "the declared independent coordinates cannot coordinate a loop at this state (singular)");
    }
    // The passive forces help: the actuators supply the rest, Gᵀ τ_passive less.
    passiveForces(model, data, q, v);
    rnea.projectOnIndependent(data.passive, passive_y);
    out.clear();
    if (t_col >= 0) out.push_back(row[t_col]);
    for (int i = 0; i < ny; ++i) out.push_back(tau_y[i] - passive_y[i]);
    writer.writeRow(out);
  }
  writer.commit();
  return static_cast<long>(table.rows.size());
}

}  // namespace loopsim
