// Batch evaluation (as `loopsim eval`) and state sampling.
#include "bindings.hpp"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parallel/machine_limits.hpp>
#include <loopsim/parallel/ordered_blocks.hpp>
#include <loopsim/sim/state_evaluator.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopsim::python {

namespace {

using Batch = py::array_t<double, py::array::c_style | py::array::forcecast>;

void requireShape(const Batch& a, const char* name, py::ssize_t rows, py::ssize_t columns) {
  if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != columns) {
    throw py::value_error(std::string(name) + " must have shape (" + std::to_string(rows) + ", " +
                          std::to_string(columns) + ")");
  }
}

// One worker's evaluator and vectors, made on its thread at its first block.
struct EvaluationWorkspace {
  explicit EvaluationWorkspace(const StateEvaluator& evaluator)
      : evaluator(evaluator.worker()), q(evaluator.model().nq), v(evaluator.model().nv), tau(evaluator.model().nv),
        vdot(evaluator.model().nv), lambda(evaluator.constraints().dimension()) {}
  StateEvaluator evaluator;
  VectorX q, v, tau, vdot, lambda;
};

py::tuple evaluate(const Scene& scene, const Batch& Q, const Batch& V, const Batch& TAU,
                   const std::optional<std::string>& solver, bool stabilization, std::optional<int> threads) {
  const StateEvaluator evaluator(scene, EvaluatorOptions{solver.value_or(""), stabilization});
  const Model& model = evaluator.model();
  if (Q.ndim() != 2) throw py::value_error("Q must be 2-D: one state per row");
  const py::ssize_t n = Q.shape(0);
  requireShape(Q, "Q", n, model.nq);
  requireShape(V, "V", n, model.nv);
  requireShape(TAU, "TAU", n, model.nv);
  const int thread_count = threads.value_or(hardwareThreads());
  if (const std::string problem = threadCountProblem(thread_count); !problem.empty()) {
    throw py::value_error("threads: " + problem);
  }
  const int m = evaluator.constraints().dimension();
  py::array_t<double> VDOT({n, static_cast<py::ssize_t>(model.nv)});
  py::array_t<double> LAMBDA({n, static_cast<py::ssize_t>(m)});
  using RowsMap = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  using OutMap = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  const RowsMap q(Q.data(), n, model.nq), v(V.data(), n, model.nv), tau(TAU.data(), n, model.nv);
  OutMap vdot(VDOT.mutable_data(), n, model.nv), lambda(LAMBDA.mutable_data(), n, m);

  // `loopsim eval --threads`'s scheduling (parallel/ordered_blocks.hpp) and
  // checks (evaluateBatchState): every row is evaluated on its own, so the
  // result is the same for every thread count; the first failing row in
  // input order is reported.
  const OrderedBlocks blocks(0, static_cast<std::size_t>(n), thread_count);
  std::vector<std::string> failures(blocks.count());
  std::vector<std::unique_ptr<EvaluationWorkspace>> workspaces(static_cast<std::size_t>(thread_count));
  std::string failure;
  {
    py::gil_scoped_release release;  // only the arrays' memory is touched: their owners hold them
    blocks.run(
        [&](int worker, std::size_t b) {
          auto& w = workspaces[static_cast<std::size_t>(worker)];
          if (!w) w = std::make_unique<EvaluationWorkspace>(evaluator);
          const Chunk rows = blocks.block(b);
          for (auto k = static_cast<Eigen::Index>(rows.begin); k < static_cast<Eigen::Index>(rows.end); ++k) {
            w->q = q.row(k).transpose();
            w->v = v.row(k).transpose();
            w->tau = tau.row(k).transpose();
            std::string where = "row " + std::to_string(k);  // rows named from 0
            const std::string message = evaluateBatchState(w->evaluator, w->q, w->v, w->tau, w->vdot, w->lambda, where);
            if (!message.empty()) {
              failures[b] = where + ": " + message;
              return;
            }
            vdot.row(k) = w->vdot.transpose();
            lambda.row(k) = w->lambda.transpose();
          }
        },
        [&](std::size_t b) {
          failure = std::move(failures[b]);
          return failure.empty();
        });
  }
  // The arrays are at fault, not the scene file: no file is named.
  if (!failure.empty()) throw ModelError("", "evaluate(Q, V, TAU)", failure);
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

}  // namespace

void bindEvaluation(py::module_& m) {
  m.def("evaluate", &evaluate, py::arg("scene"), py::arg("Q"), py::arg("V"), py::arg("TAU"),
        py::arg("solver") = std::nullopt, py::arg("stabilization") = true, py::arg("threads") = std::nullopt,
        R"(Constrained forward dynamics at a batch of states, as `loopsim eval` (bit for bit).

Q (N, nq), V (N, nv), TAU (N, nv): one state per row; TAU is the applied force, the
passive joint forces (damping, springs) are added and implicit damping is handled as
in a simulation step. Returns (VDOT (N, nv), LAMBDA (N, m)), LAMBDA ordered as
state_columns(scene)["lambda"]. Every state is evaluated on its own (iterative solvers
start cold), so the result does not depend on threads. threads: worker threads
(default: every core), each with its own solver and workspace, the GIL released
(as `loopsim eval --threads`). stabilization=False: Baumgarte gains 0. Raises
ModelError naming the first failing row for a NaN/Inf state, a non-unit quaternion
or a non-finite result.)");
  m.def("sample_states", &sampleStates, py::arg("scene"), py::arg("samples"), py::arg("seed") = 0u,
        "Constraint-consistent states near the scene's start: (Q, V, TAU), deterministic for a seed "
        "(the states of `loopsim bench`).");
}

}  // namespace loopsim::python
