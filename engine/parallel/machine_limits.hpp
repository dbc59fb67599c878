#pragma once
// What this machine can hold: the bounds that keep a thread count or a number
// of states from growing memory until the process is killed, checked before
// the work with a message that names the count and the machine's figure.
#include <cstdint>
#include <string>

namespace loopsim {

/// The most worker threads a batch may start: 8 per core. More than the cores
/// only adds stacks, workspaces and switching; 8x leaves room for
/// oversubscription on purpose.
int maxWorkerThreads();

/// Empty when `threads` is a usable worker count (1..maxWorkerThreads()),
/// else why not, e.g. "100000 is more than 16 (8 x this machine's 2 cores)".
std::string threadCountProblem(long long threads);

/// Installed memory in bytes (0 when the system does not say).
std::uint64_t physicalMemoryBytes();

/// Empty when `count` items of `bytes_each` fit in half the installed memory,
/// else e.g. "1000000000 states need 72 GB; this machine has 23.4 GB of memory".
std::string memoryProblem(long long count, double bytes_each, const std::string& items);

}  // namespace loopsim
