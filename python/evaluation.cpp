// Batch evaluation (as `loopsim eval`), state sampling and records.
#include "bindings.hpp"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/sim/state_evaluator.hpp>

#include <optional>
#include <string>

namespace loopsim::python {

namespace {

using Batch = py::array_t<double, py::array::c_style | py::array::forcecast>;

void requireShape(const Batch& a, const char* name, py::ssize_t rows, py::ssize_t columns) {
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != columns) {
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(rows) + ", " +
                          std::to_string(columns) + ")");
  }
}

py::tuple evaluate(const Scene& scene, const Batch& Q, const Batch& V, const Batch& TAU,
                   const std::optional<std::string>& solver, bool stabilization) {
  StateEvaluator evaluator(scene, EvaluatorOptions{solver.value_or(""), stabilization});
  const Model& model = evaluator.model();
  if (Q.ndim() != 2) throw py::value_error("Q must be 2-D: one state per row");
  const py::ssize_t n = Q.shape(0);
  requireShape(Q, "Q", n, model.nq);
  requireShape(V, "V", n, model.nv);
  requireShape(TAU, "TAU", n, model.nv);
  const int m = evaluator.constraints().dimension();
  py::array_t<double> VDOT({n, static_cast<py::ssize_t>(model.nv)});
  py::array_t<double> LAMBDA({n, static_cast<py::ssize_t>(m)});
  using RowsMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  using OutMap = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  const RowsMap q(Q.data(), n, model.nq), v(V.data(), n, model.nv), tau(TAU.data(), n, model.nv);
  OutMap vdot(VDOT.mutable_data(), n, model.nv), lambda(LAMBDA.mutable_data(), n, m);
  VectorX qk(model.nq), vk(model.nv), tk(model.nv), vdotk(model.nv), lambdak(m);
  std::string failure;
  {
    py::gil_scoped_release release;
    for (py::ssize_t k = 0; k < n && failure.empty(); ++k) {
      qk = q.row(k).transpose();
      vk = v.row(k).transpose();
      tk = tau.row(k).transpose();
      // The checks of `loopsim eval` (record/state_evaluation.cpp), rows named from 0.
      std::string where = "row " + std::to_string(k);
      if (!qk.allFinite() || !vk.allFinite() || !tk.allFinite()) {
        failure = where + ": state has a NaN or Inf value";
        break;
      }
      if (const std::string message = nonUnitQuaternion(model, qk, where); !message.empty()) {
        failure = where + ": " + message;
        break;
      }
      evaluator.evaluate(qk, vk, tk, vdotk, lambdak);
      if (!vdotk.allFinite() || !lambdak.allFinite()) {
        failure = where + ": the dynamics at this state are not finite (vdot or lambda is NaN or Inf)";
        break;
      }
      vdot.row(k) = vdotk.transpose();
      lambda.row(k) = lambdak.transpose();
    }
  }
  if (!failure.empty()) throw ModelError(scene.source_file, "evaluate", failure);
  return py::make_tuple(VDOT, LAMBDA);
}

py::tuple sampleStates(const Scene& scene, int samples, unsigned seed) {
  if (samples < 0) throw py::value_error("samples must be >= 0, not " + std::to_string(samples));
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const auto states = loopsim::sampleStates(scene, set, samples, seed);
  const Model& model = *scene.model;
  py::array_t<double> Q({static_cast<py::ssize_t>(samples), static_cast<py::ssize_t>(model.nq)});
  py::array_t<double> V({static_cast<py::ssize_t>(samples), static_cast<py::ssize_t>(model.nv)});
  py::array_t<double> TAU({static_cast<py::ssize_t>(samples), static_cast<py::ssize_t>(model.nv)});
  auto q = Q.mutable_unchecked<2>();
  auto v = V.mutable_unchecked<2>();
  auto tau = TAU.mutable_unchecked<2>();
  for (int k = 0; k < samples; ++k) {
    for (int i = 0; i < model.nq; ++i) q(k, i) = states[static_cast<std::size_t>(k)].q[i];
    for (int i = 0; i < model.nv; ++i) {
      v(k, i) = states[static_cast<std::size_t>(k)].v[i];
      tau(k, i) = states[static_cast<std::size_t>(k)].tau[i];
    }
  }
  return py::make_tuple(Q, V, TAU);
}

py::dict readRecord(const std::filesystem::path& file) {
  const CsvTable table = readCsv(file);
  py::dict columns;
  const auto rows = static_cast<py::ssize_t>(table.rows.size());
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    py::array_t<double> column(rows);
    auto out = column.mutable_unchecked<1>();
    for (py::ssize_t r = 0; r < rows; ++r) out(r) = table.rows[static_cast<std::size_t>(r)][c];
    columns[py::str(table.columns[c])] = column;
  }
  return columns;
}

}  // namespace

void bindEvaluation(py::module_& m) {
  m.def("evaluate", &evaluate, py::arg("scene"), py::arg("Q"), py::arg("V"), py::arg("TAU"),
        py::arg("solver") = std::nullopt, py::arg("stabilization") = true,
        R"(Constrained forward dynamics at a batch of states, as `loopsim eval` (bit for bit).

Q (N, nq), V (N, nv), TAU (N, nv): one state per row; TAU is the applied force, the
passive joint forces (damping, springs) are added and implicit damping is handled as
in a simulation step. Returns (VDOT (N, nv), LAMBDA (N, m)), LAMBDA ordered as
state_columns(scene)["lambda"]. Every state is evaluated on its own (iterative solvers
start cold). stabilization=False: Baumgarte gains 0. Raises ModelError naming the row
for a NaN/Inf state, a non-unit quaternion or a non-finite result.)");
  m.def("sample_states", &sampleStates, py::arg("scene"), py::arg("samples"), py::arg("seed") = 0u,
        "Constraint-consistent states near the scene's start: (Q, V, TAU), deterministic for a seed "
        "(the states of `loopsim bench`).");
  m.def("read_record", &readRecord, py::arg("file"),
        "A CSV record (or eval output) as {column name: float64 array}; see state_columns for the names.");
}

}  // namespace loopsim::python
