#include <loopsim/sim/state_history.hpp>

#include <algorithm>
#include <cmath>

#include <loopsim/model/errors.hpp>

namespace loopsim {

StateHistory::StateHistory(int nq, int nv, std::size_t capacity)
    : q_(nq, static_cast<Eigen::Index>(std::max<std::size_t>(1, capacity))),
      v_(nv, static_cast<Eigen::Index>(std::max<std::size_t>(1, capacity))),
      times_(std::max<std::size_t>(1, capacity), 0.0),
      applied_work_(times_.size(), 0.0),
      damping_work_(times_.size(), 0.0),
      steps_(times_.size(), 0) {
  scratch_.q = VectorX::Zero(nq);
  scratch_.v = VectorX::Zero(nv);
}

std::size_t StateHistory::capacityFor(double seconds, double dt, int nq, int nv, double max_bytes) {
  if (!(seconds > 0.0) || !(dt > 0.0)) return 1;
  const double states = std::ceil(seconds / dt) + 1.0;
  const double bytes_per_state = 8.0 * (nq + nv + 4);
  return static_cast<std::size_t>(std::clamp(std::min(states, max_bytes / bytes_per_state), 1.0, 1e9));
}

void StateHistory::push(const Simulation& simulation) {
  std::size_t at;
  if (count_ < capacity()) {
    at = slot(count_);
    ++count_;
  } else {
    at = first_;
    first_ = (first_ + 1) % capacity();
  }
  simulation.snapshot(scratch_);  // sized at construction: no allocation, no energy evaluation
  const auto column = static_cast<Eigen::Index>(at);
  q_.col(column) = scratch_.q;
  v_.col(column) = scratch_.v;
  times_[at] = scratch_.time;
  steps_[at] = scratch_.steps;
  applied_work_[at] = scratch_.applied_work;
  damping_work_[at] = scratch_.damping_work;
}

void StateHistory::truncateAfter(std::size_t index) {
  if (index + 1 < count_) count_ = index + 1;
}

void StateHistory::get(std::size_t index, SimulationSnapshot& out) const {
  if (index >= count_) throw ModelError("", "history", "no state " + std::to_string(index) + " (holds " + std::to_string(count_) + ")");
  const std::size_t at = slot(index);
  out.time = times_[at];
  out.steps = steps_[at];
  out.q = q_.col(static_cast<Eigen::Index>(at));
  out.v = v_.col(static_cast<Eigen::Index>(at));
  out.applied_work = applied_work_[at];
  out.damping_work = damping_work_[at];
}

std::size_t StateHistory::indexAt(double t) const {
  std::size_t lo = 0, hi = count_;  // first index with time > t
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (time(mid) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo == 0 ? 0 : lo - 1;
}

}  // namespace loopsim
