#pragma once
// Heap-allocation counting for "no allocation inside step/solve/algorithms"
// tests. The counting allocator (operator new/delete replacements and the
// interposed malloc/calloc/realloc) lives in test_allocation.cpp: it is the
// ONE allocator hook of loopsim_unit_tests, so other test files use it through
// this header instead of defining their own. Counting is per thread.
#include <cstddef>
#include <functional>

namespace loopsim::test {

/// Runs f with counting on and returns the number of heap allocations it made.
long countHeapAllocations(const std::function<void()>& f);

// The scope form's primitives (not nestable: one scope at a time).
void startAllocationCounting();  // resets the count and turns counting on
void stopAllocationCounting();
long countedAllocations();

/// Counts the allocations made while the scope is alive.
class AllocationScope {
 public:
  AllocationScope() { startAllocationCounting(); }
  ~AllocationScope() { stopAllocationCounting(); }
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;
  std::size_t count() const { return static_cast<std::size_t>(countedAllocations()); }
};

}  // namespace loopsim::test
