#include <loopsim/parallel/worker_pool.hpp>

#include <stdexcept>

namespace loopsim {

WorkerPool::WorkerPool(int threads) {
  if (threads < 1) throw std::invalid_argument("WorkerPool: threads must be >= 1");
  errors_.resize(static_cast<std::size_t>(threads));
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int k = 1; k < threads; ++k) workers_.emplace_back([this, k] { serve(k); });
}

WorkerPool::~WorkerPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  // The jthreads join on destruction.
}

void WorkerPool::run(const std::function<void(int part)>& work) {
  {
    const std::lock_guard lock(mutex_);
    work_ = &work;
    pending_ = size() - 1;
    ++generation_;
    for (auto& e : errors_) e = nullptr;
  }
  start_.notify_all();
  try {
    work(0);
  } catch (...) {
    errors_[0] = std::current_exception();
  }
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  work_ = nullptr;
  for (const auto& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

void WorkerPool::serve(int part) {
  std::uint64_t seen = 0;
  while (true) {
    const std::function<void(int)>* work = nullptr;
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      work = work_;
    }
    std::exception_ptr error;
    try {
      (*work)(part);
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      errors_[static_cast<std::size_t>(part)] = error;
      --pending_;
    }
    done_.notify_one();
  }
}

}  // namespace loopsim
