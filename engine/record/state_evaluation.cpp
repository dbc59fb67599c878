#include <loopsim/record/state_evaluation.hpp>

#include <loopsim/record/record_row.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_writer.hpp>
#include <loopsim/record/state_columns.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/parallel/ordered_blocks.hpp>
#include <loopsim/model/name_suggestion.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
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
  out.perturbation_body = table.column(perturbationColumns().front());

  // Every column is read or knowingly skipped: a misspelt one would otherwise
  // silently be zero.
  std::vector<std::string> readable{"t"};
  for (const auto& names : {configurationColumns(model), velocityColumns(model, "v"), tau_names}) {
    readable.insert(readable.end(), names.begin(), names.end());
  }
  std::vector<std::string> record_outputs = velocityColumns(model, "vdot");
  for (const auto& name : lambdaColumns(set)) record_outputs.push_back(name);
  for (const auto& name : recordStatisticsColumns()) record_outputs.push_back(name);
  // The GUI's mouse wrench: read to refuse the rows it pushed (their v̇ includes it).
  for (const auto& name : perturbationColumns()) record_outputs.push_back(name);
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
                                 const EvalOptions& options, int shard, int shards)
    : scene_(scene), states_csv_(states_csv) {
  const Model& model = *scene.model;
  const std::string solver_name = options.solver.empty() ? scene.solver : options.solver;
  if (solver_name == "auto") {
    // A timing probe would pick differently in every process and shard.
    throw ModelError(scene.source_file, "solver 'auto'",
                     "picks by timing, which may differ between processes: eval needs a named solver (--solver NAME; "
                     "a record's summary names the one its run picked)");
  }
  // Refuses an unknown or unfit solver before any work.
  evaluator_ = std::make_unique<const StateEvaluator>(scene, EvaluatorOptions{solver_name, options.stabilization});

  table_ = readCsv(states_csv, options.threads, shard, shards);
  cols_ = mapStateColumns<Columns>(table_, scene, evaluator_->constraints(), options.tau_default_zero);
  if (cols_.t >= 0) out_columns_.push_back("t");
  for (const auto& name : velocityColumns(model, "vdot")) out_columns_.push_back(name);
  for (const auto& name : lambdaColumns(evaluator_->constraints())) out_columns_.push_back(name);
}

std::vector<std::filesystem::path> StateEvaluation::inputFiles() const {
  std::vector<std::filesystem::path> inputs{states_csv_, scene_.source_file};
  for (const std::string& f : scene_.model_files) inputs.emplace_back(f);
  return inputs;
}

void StateEvaluation::raise(const EvalFailure& failure) const {
  throw ModelError(table_.file, failure.element, failure.message);
}

// One worker's solver, workspace and vectors; it reads only the shared const
// model, constraint set and table.
struct StateEvaluation::Workspace {
  Workspace(const StateEvaluation& e, const Model& model)
      : evaluator(e.evaluator_->worker()), q(model.nq), v(model.nv), tau(model.nv), vdot(model.nv),
        lambda(e.evaluator_->constraints().dimension()), out(e.out_columns_.size()) {}
  StateEvaluator evaluator;
  VectorX q, v, tau, vdot, lambda;
  std::vector<double> out;
};

struct StateEvaluation::Block {
  std::string csv;
  long count = 0;
  std::optional<EvalFailure> failure;
};

EvalRun StateEvaluation::evaluate(std::size_t begin, std::size_t end, int threads, const EvalSink& sink,
                                  const std::function<bool()>& stop) const {
  if (threads < 1) throw std::invalid_argument("StateEvaluation::evaluate: threads must be >= 1");
  const OrderedBlocks blocks(begin, end, threads);
  std::vector<Block> out(blocks.count());
  std::vector<std::unique_ptr<Workspace>> workspaces(static_cast<std::size_t>(threads));
  EvalRun run;
  blocks.run(
      [&](int worker, std::size_t b) {
        auto& workspace = workspaces[static_cast<std::size_t>(worker)];
        if (!workspace) workspace = std::make_unique<Workspace>(*this, *scene_.model);
        const Chunk rows = blocks.block(b);
        evaluateRows(*workspace, rows.begin, rows.end, out[b]);
      },
      [&](std::size_t b) {
        Block block = std::move(out[b]);
        sink(block.csv);
        run.count += block.count;
        run.failure = std::move(block.failure);
        if (run.failure) return false;
        run.stopped = stop && stop() && run.count < static_cast<long>(end - begin);
        return !run.stopped;
      });
  return run;
}

void StateEvaluation::evaluateRows(Workspace& w, std::size_t begin, std::size_t end, Block& out) const {
  const Model& model = *scene_.model;
  out.csv.reserve((end - begin) * w.out.size() * 24);
  for (std::size_t r = begin; r < end; ++r) {
    const auto& row = table_.rows[r];
    for (int k = 0; k < model.nq; ++k) w.q[k] = row[static_cast<std::size_t>(cols_.q[static_cast<std::size_t>(k)])];
    for (int k = 0; k < model.nv; ++k) {
      w.v[k] = row[static_cast<std::size_t>(cols_.v[static_cast<std::size_t>(k)])];
      const int tc = cols_.tau[static_cast<std::size_t>(k)];
      w.tau[k] = tc >= 0 ? row[static_cast<std::size_t>(tc)] : 0.0;
    }
    std::string line = "line " + std::to_string(table_.line_numbers[r]);
    if (isRecordFinalState(row, cols_.tau)) {
      spdlog::info("{}: {}: the record's final state (tau is nan: no step follows it) is not evaluated", table_.file,
                   line);
      continue;
    }
    std::string message;
    const double pushed = cols_.perturbation_body >= 0 ? row[static_cast<std::size_t>(cols_.perturbation_body)] : 0.0;
    // A NaN or Inf state is named as such first (evaluateBatchState).
    if (pushed != 0.0 && w.q.allFinite() && w.v.allFinite() && w.tau.allFinite()) {
      char body[32];
      std::snprintf(body, sizeof body, "%g", pushed);
      message = std::string("the record's step pushed body ") + body +
                " (perturbation:body, the GUI's mouse): eval applies no external wrench, so it would not reproduce this "
                "row's vdot";
    } else {
      message = evaluateBatchState(w.evaluator, w.q, w.v, w.tau, w.vdot, w.lambda, line);
    }
    if (!message.empty()) {
      out.failure = EvalFailure{r, std::move(line), std::move(message)};
      return;
    }
    std::size_t c = 0;
    if (cols_.t >= 0) w.out[c++] = row[static_cast<std::size_t>(cols_.t)];
    for (int k = 0; k < model.nv; ++k) w.out[c++] = w.vdot[k];
    for (int k = 0; k < w.lambda.size(); ++k) w.out[c++] = w.lambda[k];
    CsvWriter::formatRow(w.out, out.csv);
    ++out.count;
  }
}

EvalRun evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); };
  auto start = Clock::now();
  const StateEvaluation evaluation(scene, states_csv, options);
  // The output is checked (and its temporary opened) before the work.
  CsvWriter writer(out_csv, evaluation.outputColumns(), options.overwrite, evaluation.inputFiles());
  spdlog::debug("eval: read {} rows in {:.3f} s", evaluation.rowCount(), seconds(start));
  start = Clock::now();
  if (options.stop_requested && options.stop_requested()) {
    EvalRun none;
    none.stopped = true;
    return none;
  }
  const EvalRun run = evaluation.evaluate(0, evaluation.rowCount(), options.threads,
                                          [&writer](std::string_view lines) { writer.writeRows(lines); },
                                          options.stop_requested);
  if (run.failure) evaluation.raise(*run.failure);
  if (run.stopped) return run;  // the writer's destructor removes its temporary file
  writer.commit();
  spdlog::debug("eval: evaluated and wrote {} states on {} threads in {:.3f} s", run.count, options.threads,
                seconds(start));
  return run;
}

}  // namespace loopsim
