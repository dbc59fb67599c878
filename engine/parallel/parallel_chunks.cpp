#include <loopsim/parallel/parallel_chunks.hpp>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

namespace loopsim {

Chunk chunkOf(std::size_t begin, std::size_t end, int parts, int k) {
  if (parts < 1 || k < 0 || k >= parts) throw std::invalid_argument("chunkOf: part out of range");
  const std::size_t n = end - begin, p = static_cast<std::size_t>(parts), i = static_cast<std::size_t>(k);
  const std::size_t base = n / p, extra = n % p;
  const std::size_t first = begin + i * base + std::min(i, extra);
  return {first, first + base + (i < extra ? 1 : 0)};
}

void forEachChunk(std::size_t begin, std::size_t end, int threads,
                  const std::function<void(int part, Chunk chunk)>& work) {
  if (threads < 1) throw std::invalid_argument("forEachChunk: threads must be >= 1");
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  auto run = [&](int k) {
    try {
      work(k, chunkOf(begin, end, threads, k));
    } catch (...) {
      errors[static_cast<std::size_t>(k)] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> workers;
    workers.reserve(static_cast<std::size_t>(threads - 1));
    for (int k = 1; k < threads; ++k) workers.emplace_back(run, k);
    run(0);
  }  // joined here
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

int hardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

}  // namespace loopsim
