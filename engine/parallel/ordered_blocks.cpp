#include <loopsim/parallel/ordered_blocks.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace loopsim {

OrderedBlocks::OrderedBlocks(std::size_t begin, std::size_t end, int threads)
    : begin_(begin), end_(end), threads_(threads) {
  if (threads < 1) throw std::invalid_argument("OrderedBlocks: threads must be >= 1");
  if (end < begin) throw std::invalid_argument("OrderedBlocks: end < begin");
  const std::size_t items = end - begin;
  block_items_ = std::clamp<std::size_t>(items / (8 * static_cast<std::size_t>(threads)), 1, 256);
  blocks_ = (items + block_items_ - 1) / block_items_;
}

Chunk OrderedBlocks::block(std::size_t b) const {
  const std::size_t first = begin_ + b * block_items_;
  return {first, std::min(end_, first + block_items_)};
}

void OrderedBlocks::run(const std::function<void(int worker, std::size_t block)>& work,
                        const std::function<bool(std::size_t block)>& deliver) const {
  struct Slot {
    bool done = false;
    std::exception_ptr error;
  };
  std::vector<Slot> slots(blocks_);
  std::mutex mutex;
  std::condition_variable finished;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto serve = [&](int worker) {
    while (!stop) {
      const std::size_t b = next++;
      if (b >= blocks_) return;
      std::exception_ptr error;
      try {
        work(worker, b);
      } catch (...) {
        error = std::current_exception();
      }
      {
        const std::lock_guard lock(mutex);
        slots[b] = Slot{true, error};
      }
      finished.notify_one();
    }
  };

  std::exception_ptr error;
  {
    std::vector<std::jthread> workers;
    for (int k = 0; k < threads_; ++k) workers.emplace_back(serve, k);
    try {
      for (std::size_t b = 0; b < blocks_; ++b) {
        std::exception_ptr block_error;
        {
          std::unique_lock lock(mutex);
          finished.wait(lock, [&] { return slots[b].done; });
          block_error = slots[b].error;
        }
        if (block_error) std::rethrow_exception(block_error);
        if (!deliver(b)) break;
      }
    } catch (...) {
      error = std::current_exception();  // a worker's, or deliver's (a full disk)
    }
    stop = true;
  }  // the workers finish their block and are joined
  if (error) std::rethrow_exception(error);
}

}  // namespace loopsim
