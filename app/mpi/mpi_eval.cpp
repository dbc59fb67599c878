// `loopsim eval --mpi` (mpi_eval.hpp): sharding by rank, in-order gathering on rank 0.
// Every collective below is reached by every rank, errors included: a rank
// that fails says so in the next agreement step instead of leaving the others
// blocked, and rank 0 reports the first failure (lowest rank; for a bad row,
// the first bad row in input order, since shards follow the rank order).
#include <mpi.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "exit_codes.hpp"
#include <loopsim/model/errors.hpp>
#include "mpi_eval.hpp"
#include <loopsim/parallel/parallel_chunks.hpp>
#include <loopsim/record/csv_writer.hpp>

namespace loopsim::app {

namespace {

// MPI_Init on construction, MPI_Finalize on destruction (every exit path).
class MpiSession {
 public:
  MpiSession() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized == 0) MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Ranks sharing this rank's node (its memory, hence its cores).
  int ranksOnThisNode() const {
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    int n = 1;
    MPI_Comm_size(local, &n);
    MPI_Comm_free(&local);
    return n;
  }

 private:
  int rank_ = 0, size_ = 1;
};

constexpr int kTagText = 1;
// MPI counts are int: large texts travel in pieces.
constexpr std::size_t kPiece = std::size_t{1} << 30;

// Sends the concatenation of `pieces` as one text.
void sendText(const std::vector<std::string>& pieces, int to) {
  std::uint64_t size = 0;
  for (const auto& piece : pieces) size += piece.size();
  MPI_Send(&size, 1, MPI_UINT64_T, to, kTagText, MPI_COMM_WORLD);
  for (const auto& text : pieces) {
    for (std::size_t at = 0; at < text.size(); at += kPiece) {
      const int n = static_cast<int>(std::min(kPiece, text.size() - at));
      MPI_Send(text.data() + at, n, MPI_CHAR, to, kTagText, MPI_COMM_WORLD);
    }
  }
}

// Receives one text sent by sendText (in the same pieces: a receive takes
// exactly one send, so the piece boundaries are recomputed from the sizes).
std::string receiveText(int from) {
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kTagText, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string text(size, '\0');
  for (std::size_t at = 0; at < text.size();) {
    MPI_Status status;
    MPI_Probe(from, kTagText, MPI_COMM_WORLD, &status);
    int n = 0;
    MPI_Get_count(&status, MPI_CHAR, &n);
    MPI_Recv(text.data() + at, n, MPI_CHAR, from, kTagText, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    at += static_cast<std::size_t>(n);
  }
  return text;
}

// Collective: the lowest rank whose `error` is non-empty and its message (on
// rank 0; other ranks get an empty message), or nothing when no rank failed.
std::optional<std::pair<int, std::string>> firstError(const MpiSession& mpi, const std::string& error) {
  int mine = error.empty() ? mpi.size() : mpi.rank(), first = mpi.size();
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == mpi.size()) return std::nullopt;
  if (first == 0) return std::pair{0, mpi.rank() == 0 ? error : std::string()};
  if (mpi.rank() == first) sendText({error}, 0);
  return std::pair{first, mpi.rank() == 0 ? receiveText(first) : std::string()};
}

// After a failure every rank returns: rank 0 throws the message (main prints
// it, exit code 1, which mpirun returns), the others leave quietly with 0: a
// rank's non-zero exit makes mpirun abort the job, which could kill rank 0
// before it has printed the error.
int stopOnError(const MpiSession& mpi, const std::pair<int, std::string>& failure, bool name_rank) {
  if (mpi.rank() != 0) return kExitOk;
  throw std::runtime_error(name_rank && failure.first != 0
                               ? failure.second + " (on MPI rank " + std::to_string(failure.first) + ")"
                               : failure.second);
}

}  // namespace

bool mpiSupported() { return true; }

int evaluateStatesOverMpi(const Scene& scene, const std::filesystem::path& states_csv,
                          const std::filesystem::path& out_csv, EvalOptions options, bool threads_given) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  const auto seconds = [&start] {
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    start = Clock::now();
    return s;
  };
  const MpiSession mpi;
  const int rank = mpi.rank(), ranks = mpi.size();
  spdlog::debug("eval --mpi: rank {} of {}: MPI started in {:.3f} s", rank, ranks, seconds());
  // Ranks sharing a node share its cores.
  if (!threads_given) options.threads = std::max(1, hardwareThreads() / mpi.ranksOnThisNode());
  // Rank 0 speaks for the job; the others' info lines would repeat it.
  if (rank != 0) spdlog::set_level(std::max(spdlog::get_level(), spdlog::level::warn));

  // 1. Every rank reads the states, parsing only its shard's rows (the line
  // scan still counts them all); then rank 0 checks and opens the output, in
  // the order of a single-process run, so the same error comes first.
  std::unique_ptr<StateEvaluation> evaluation;
  std::string error;
  try {
    evaluation = std::make_unique<StateEvaluation>(scene, states_csv, options, rank, ranks);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const auto failure = firstError(mpi, error)) return stopOnError(mpi, *failure, true);
  std::unique_ptr<CsvWriter> writer;
  try {
    if (rank == 0) {
      writer = std::make_unique<CsvWriter>(out_csv, evaluation->outputColumns(), options.overwrite,
                                           evaluation->inputFiles());
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const auto failure = firstError(mpi, error)) return stopOnError(mpi, *failure, false);

  // The same rows everywhere: a states file that differs between nodes would shard garbage.
  const auto rows = static_cast<unsigned long long>(evaluation->rowCount());
  unsigned long long lowest = 0, highest = 0;
  MPI_Allreduce(&rows, &lowest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rows, &highest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (lowest != highest) {
    if (rank != 0) return kExitOk;  // rank 0 reports it (see stopOnError)
    throw ModelError(states_csv.string(), "--mpi", "the ranks read different row counts (" + std::to_string(lowest) +
                                                       " to " + std::to_string(highest) +
                                                       "); every rank must see the same states file");
  }

  spdlog::debug("eval --mpi: rank {}: read in {:.3f} s", rank, seconds());

  // 2. This rank's shard, on its threads.
  const Chunk shard = chunkOf(0, evaluation->rowCount(), ranks, rank);
  std::vector<std::string> text;  // this shard's output lines, in order
  EvalRun part;
  error.clear();
  try {
    part = evaluation->evaluate(shard.begin, shard.end, options.threads,
                                [&text](std::string_view lines) { text.emplace_back(lines); });
    if (part.failure) evaluation->raise(*part.failure);
    // SIGINT/SIGTERM (options.stop_requested): stopped as any failure, so
    // that no rank waits for another and rank 0's partial file is removed.
    if (part.stopped) {
      error = "eval interrupted by SIGINT or SIGTERM; " + out_csv.string() +
              " was not written and no partial file is left";
    }
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (const auto failure = firstError(mpi, error)) return stopOnError(mpi, *failure, false);

  spdlog::debug("eval --mpi: rank {}: evaluated rows {}-{} on {} threads in {:.3f} s", rank, shard.begin, shard.end,
                options.threads, seconds());

  // 3. Rank 0 writes its shard, then every other rank's, in rank order.
  long count = 0;
  const long mine = part.count;
  MPI_Reduce(&mine, &count, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) {
    sendText(text, 0);
    return kExitOk;
  }
  for (const std::string& piece : text) writer->writeRows(piece);
  text.clear();
  for (int from = 1; from < ranks; ++from) writer->writeRows(receiveText(from));
  writer->commit();
  spdlog::debug("eval --mpi: gathered and wrote in {:.3f} s", seconds());
  std::printf("evaluated %ld states -> %s (%d MPI ranks x %d threads)\n", count, out_csv.c_str(), ranks,
              options.threads);
  return kExitOk;
}

}  // namespace loopsim::app
