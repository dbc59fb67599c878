#include <loopsim/parallel/machine_limits.hpp>

#include <unistd.h>

#include <cstdio>

#include <loopsim/parallel/parallel_chunks.hpp>

namespace loopsim {

namespace {
std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}
}  // namespace

int maxWorkerThreads() { return 8 * hardwareThreads(); }

std::string threadCountProblem(long long threads) {
  if (threads < 1) return std::to_string(threads) + " is not a thread count (at least 1)";
  if (threads > maxWorkerThreads()) {
    return std::to_string(threads) + " is more than " + std::to_string(maxWorkerThreads()) + " (8 x this machine's " +
           std::to_string(hardwareThreads()) + " cores): more threads than that only add memory and switching";
  }
  return "";
}

std::uint64_t physicalMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::string memoryProblem(long long count, double bytes_each, const std::string& items) {
  const double need = static_cast<double>(count) * bytes_each;
  const double have = static_cast<double>(physicalMemoryBytes());
  if (have == 0.0 || need <= 0.5 * have) return "";
  return std::to_string(count) + " " + items + " need " + gigabytes(need) + "; this machine has " + gigabytes(have) +
         " of memory (at most half of it is used)";
}

}  // namespace loopsim
