#pragma once
// Which state of a history the GUI shows: nullopt is the newest (live) state,
// an index a past one. One rule for the single simulation's history and the
// comparison's lockstep histories.
#include <algorithm>
#include <cstddef>
#include <optional>

namespace loopsim::app {

/// The view after moving `delta` states (negative: back) from `viewed` in a
/// history of `size` states, clamped; reaching the newest shows the live state.
inline std::optional<std::size_t> movedHistoryView(std::optional<std::size_t> viewed, long delta, std::size_t size) {
  if (size == 0) return viewed;
  const long newest = static_cast<long>(size) - 1;
  const long from = viewed ? static_cast<long>(*viewed) : newest;
  const long to = std::clamp(from + delta, 0L, newest);
  if (to == newest) return std::nullopt;
  return static_cast<std::size_t>(to);
}

/// The view showing state `index` (clamped to the newest, which is the live state).
inline std::optional<std::size_t> historyViewAt(std::size_t index, std::size_t size) {
  if (size == 0) return std::nullopt;
  return movedHistoryView(std::nullopt, static_cast<long>(std::min(index, size - 1)) - static_cast<long>(size - 1), size);
}

}  // namespace loopsim::app
