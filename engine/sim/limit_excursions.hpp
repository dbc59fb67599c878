#pragma once
// Limits the engine does not simulate yet (joint position ranges, velocity
// limits) are watched during a run and reported once per joint: when the joint
// first exceeded its limit and how far beyond it went over the run.
// ExcursionLog is that bookkeeping, shared by PositionRangeMonitor and
// VelocityLimitMonitor; after construction it never allocates.
#include <cstddef>
#include <span>
#include <vector>

namespace loopsim {

struct LimitExcursion {
  int joint = 0;
  double first_time = -1.0;  // when it first exceeded its limit (s); -1: never
  double max_excess = 0.0;   // furthest beyond the limit over the run (m, rad, m/s or rad/s)
};

struct PositionRangeExcursion : LimitExcursion {
  double lower = 0.0, upper = 0.0;
};

struct VelocityLimitExcursion : LimitExcursion {
  int dof = 0;         // the dof (index into v) of the largest excess
  double limit = 0.0;  // that dof's limit on |v|
};

/// What a run's limit monitors saw, for the record summary.
struct LimitExcursions {
  std::vector<PositionRangeExcursion> position;
  std::vector<VelocityLimitExcursion> velocity;
};

template <class Excursion>
class ExcursionLog {
 public:
  /// Watches one more joint (before the run: allocates).
  void watch(Excursion entry) {
    entry.first_time = -1.0;
    entry.max_excess = 0.0;
    entries_.push_back(entry);
    // Room for every watched joint, so that a check never allocates (grown
    // geometrically: watching n joints stays O(n)).
    if (order_.capacity() < entries_.size()) {
      order_.reserve(entries_.capacity());
      newly_exceeded_.reserve(entries_.capacity());
    }
  }

  std::size_t size() const { return entries_.size(); }
  Excursion& operator[](std::size_t k) { return entries_[k]; }
  const Excursion& operator[](std::size_t k) const { return entries_[k]; }

  /// Starts a check: forgets the joints that were new at the last one.
  void beginCheck() { newly_exceeded_.clear(); }

  /// Entry k is `excess` (> 0) beyond its limit at time t. Returns true when
  /// it is the first time (the joint is then in newlyExceeded()).
  bool exceeded(std::size_t k, double t, double excess) {
    Excursion& e = entries_[k];
    const bool first = e.first_time < 0.0;
    if (first) {
      e.first_time = t;
      order_.push_back(static_cast<int>(k));
      newly_exceeded_.push_back(e.joint);
    }
    if (excess > e.max_excess) e.max_excess = excess;
    return first;
  }

  /// Joints that exceeded their limit for the first time at the last check.
  std::span<const int> newlyExceeded() const { return newly_exceeded_; }

  /// The joints that exceeded their limit, in the order they first did.
  std::vector<Excursion> inOrder() const {
    std::vector<Excursion> out;
    out.reserve(order_.size());
    for (const int k : order_) out.push_back(entries_[static_cast<std::size_t>(k)]);
    return out;
  }

 private:
  std::vector<Excursion> entries_;   // per watched joint
  std::vector<int> order_;           // indices into entries_, in order of first excess
  std::vector<int> newly_exceeded_;  // joints, at the last check
};

}  // namespace loopsim
