#pragma once
// `loopsim eval`: the constrained dynamics at given states, without stepping.
// Input: a CSV with the record's q:…, v:… columns, tau:… for every actuated
// joint (or tau_default_zero), optionally "t" (copied through). A record is
// accepted as is: its output columns (vdot:…, lambda:…, statistics) are
// recognised and not read. Any other column is an error naming the nearest
// valid name; so are a non-unit quaternion and a non-finite result (the row
// is named). Output: t (if given), vdot:… and lambda:… per row. τ is the
// applied force: passive joint forces (damping, springs) are added as in a
// simulation step, and with the scene's implicit damping (the default) the
// solver sees M + dt·D, so that a record's rows are reproduced bit for bit.
//
// Every state is evaluated on its own: iterative solvers start cold (λ = 0)
// at each state instead of from the previous row's λ, so a row's result
// depends on that row alone, never on its neighbours or on how the rows are
// split over threads or MPI ranks. (A record made with a warm-started
// iterative solver is therefore reproduced to the solver's tolerance, not bit
// for bit; direct solvers reproduce it exactly.)
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <loopsim/record/csv_reader.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/scene/scene.hpp>
#include <loopsim/sim/state_evaluator.hpp>

namespace loopsim {

struct EvalOptions {
  std::string solver;          // empty: the scene's solver
  bool stabilization = true;   // false: Baumgarte gains 0 (k = -J̇v)
  bool overwrite = false;
  bool tau_default_zero = false;  // actuated joints without a tau: column get τ = 0 (else an error)
  int threads = 1;             // worker threads (>= 1); the output does not depend on it
  // Polled between blocks on the calling thread: true stops the run there
  // (the CLI's SIGINT/SIGTERM), and no output is committed.
  std::function<bool()> stop_requested;
};

/// The first row of a range that could not be evaluated.
struct EvalFailure {
  std::size_t row = 0;  // index into the table's rows
  std::string element;  // "line N" or "line N, joint 'x'"
  std::string message;
};

/// What StateEvaluation::evaluate did.
struct EvalRun {
  long count = 0;  // rows evaluated (a record's final state is skipped)
  std::optional<EvalFailure> failure;  // the first failing row in input order: the run stopped there
  bool stopped = false;  // stop_requested said so before the last row
};

/// Receives output lines (CsvWriter's text, 17 significant digits) in input order.
using EvalSink = std::function<void(std::string_view lines)>;

/// An evaluation prepared once (scene, solver, the states read and their
/// columns checked) and then run over any range of rows on any number of
/// threads; const and safe to share between threads.
class StateEvaluation {
 public:
  /// Throws ModelError for an unusable solver, an unreadable states file or
  /// bad columns. With shards > 1 only the rows of chunkOf(0, rowCount(),
  /// shards, shard) are read (an MPI rank's): evaluate only those.
  StateEvaluation(const Scene& scene, const std::filesystem::path& states_csv, const EvalOptions& options,
                  int shard = 0, int shards = 1);

  std::size_t rowCount() const { return table_.rows.size(); }
  const std::vector<std::string>& outputColumns() const { return out_columns_; }
  /// The states, scene and model files: what the output must never replace.
  std::vector<std::filesystem::path> inputFiles() const;

  /// Evaluates rows [begin, end) on `threads` worker threads, each with its
  /// own solver and workspace, which take blocks of consecutive rows in turn
  /// (a core slowed by other work holds up no fixed share). The output lines
  /// go to `sink` in input order, on the calling thread, while the workers go
  /// on. Stops at the first failing row in input order. What reaches the sink
  /// is the same for every thread count.
  /// `stop`, when given, is polled after each delivered block: true stops
  /// the run (EvalRun::stopped).
  EvalRun evaluate(std::size_t begin, std::size_t end, int threads, const EvalSink& sink,
                   const std::function<bool()>& stop = {}) const;

  /// Throws the ModelError for a failure (naming the states file).
  [[noreturn]] void raise(const EvalFailure& failure) const;

 private:
  struct Columns {
    std::vector<int> q, v, tau;  // tau: -1 when absent (τ = 0)
    int t = -1;
    int perturbation_body = -1;  // a record's perturbation:body (-1: absent): eval applies no external wrench
  };
  struct Workspace;  // one worker's solver and vectors (state_evaluation.cpp)
  struct Block;      // one block's output
  void evaluateRows(Workspace& workspace, std::size_t begin, std::size_t end, Block& out) const;

  const Scene& scene_;
  std::unique_ptr<const StateEvaluator> evaluator_;  // each worker evaluates with a worker() of it
  std::filesystem::path states_csv_;
  CsvTable table_;
  Columns cols_;
  std::vector<std::string> out_columns_;
};

/// Evaluates every row of `states_csv` and writes `out_csv` (through the
/// output guard). Returns the rows evaluated; a run stopped by
/// options.stop_requested writes nothing (its temporary file is removed).
EvalRun evaluateStates(const Scene& scene, const std::filesystem::path& states_csv, const std::filesystem::path& out_csv,
                    const EvalOptions& options);

}  // namespace loopsim
