#pragma once
// Contiguous splits of [0, n) and a fork-join over them: how batch work is
// divided (the CSV reader's rows, bench's timed passes, eval's MPI shards), so
// that a split is the same wherever it is computed (an MPI rank parses exactly
// the rows it then evaluates).
#include <cstddef>
#include <functional>

namespace loopsim {

struct Chunk {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};

/// Part `k` of `parts` near-equal contiguous parts of [begin, end): the first
/// (end - begin) % parts parts hold one more item. Parts may be empty.
Chunk chunkOf(std::size_t begin, std::size_t end, int parts, int k);

/// Runs work(k, chunkOf(begin, end, threads, k)) for k = 0..threads-1, part 0
/// on the calling thread and the others on their own std::jthread, and
/// returns when all are done. An exception thrown by a part is rethrown here
/// (the lowest part's when several throw), after every part has finished.
void forEachChunk(std::size_t begin, std::size_t end, int threads,
                  const std::function<void(int part, Chunk chunk)>& work);

/// std::thread::hardware_concurrency(), or 1 when it is unknown.
int hardwareThreads();

}  // namespace loopsim
