#pragma once
// A fixed set of threads for many short fork-joins (bench: one per timed
// pass of ~1 ms): starting threads per pass would cost more than the pass.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace loopsim {

class WorkerPool {
 public:
  /// `threads` >= 1 parts per run: the caller runs part 0, threads - 1 workers the others.
  explicit WorkerPool(int threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs work(k) for k = 0..size()-1 and returns when every part is done;
  /// rethrows the lowest part's exception, if any.
  void run(const std::function<void(int part)>& work);

 private:
  void serve(int part);

  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int)>* work_ = nullptr;
  std::uint64_t generation_ = 0;  // one per run: a worker runs each generation once
  int pending_ = 0;
  bool stopping_ = false;
  std::vector<std::exception_ptr> errors_;
  std::vector<std::jthread> workers_;
};

}  // namespace loopsim
