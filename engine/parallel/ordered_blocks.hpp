#pragma once
// Batch work in blocks of consecutive items, done by worker threads that take
// the next block in turn (a core slowed by other work holds up no fixed
// share), and handed back to the calling thread in input order as the blocks
// finish: what `loopsim eval --threads` and the Python `evaluate(threads=)`
// share, so that their output is the same for every thread count.
#include <cstddef>
#include <functional>

#include <loopsim/parallel/parallel_chunks.hpp>

namespace loopsim {

class OrderedBlocks {
 public:
  /// Items [begin, end) for `threads` >= 1 workers: blocks small enough that
  /// every worker gets several, large enough (<= 256 items) that handing them
  /// out costs nothing.
  OrderedBlocks(std::size_t begin, std::size_t end, int threads);

  std::size_t count() const { return blocks_; }
  Chunk block(std::size_t b) const;

  /// Runs work(worker, b) for every block b on `threads` new threads (worker
  /// in 0..threads-1: index per-worker state with it), and deliver(b) on the
  /// calling thread for b = 0, 1, … in order, each as soon as its block is
  /// done. deliver returning false stops the run: no further block starts and
  /// none is delivered. An exception thrown by work(·, b) is rethrown at b's
  /// turn, one thrown by deliver at once; either after the workers have
  /// finished the blocks they hold and are joined. Results pass from work to
  /// deliver through the caller's own per-block storage: the hand-over
  /// orders the two.
  void run(const std::function<void(int worker, std::size_t block)>& work,
           const std::function<bool(std::size_t block)>& deliver) const;

 private:
  std::size_t begin_ = 0, end_ = 0, block_items_ = 1, blocks_ = 0;
  int threads_ = 1;
};

}  // namespace loopsim
