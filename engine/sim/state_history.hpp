#pragma once
// The last N seconds of a simulation's states (the GUI's history): a ring of
// snapshots (t, step, q, v, work) preallocated at construction, so pushing a
// state never allocates. Index 0 is the oldest state kept.
#include <cstddef>
#include <vector>

#include <loopsim/sim/simulation.hpp>

namespace loopsim {

class StateHistory {
 public:
  /// Room for `capacity` states (>= 1) of a model with nq, nv.
  StateHistory(int nq, int nv, std::size_t capacity);
  /// States for `seconds` of a run at dt (one per step and the start), capped
  /// so that the ring stays under `max_bytes`.
  static std::size_t capacityFor(double seconds, double dt, int nq, int nv, double max_bytes = 512e6);

  /// Appends the simulation's current state (the oldest one goes when full).
  void push(const Simulation& simulation);
  void clear() { first_ = count_ = 0; }
  /// Drops every state after `index` (resuming from it drops the future).
  void truncateAfter(std::size_t index);

  std::size_t size() const { return count_; }
  std::size_t capacity() const { return times_.size(); }
  double time(std::size_t index) const { return times_[slot(index)]; }
  long step(std::size_t index) const { return steps_[slot(index)]; }
  Eigen::Ref<const VectorX> q(std::size_t index) const { return q_.col(static_cast<Eigen::Index>(slot(index))); }
  /// The snapshot at `index` (no allocation once `out` is sized).
  void get(std::size_t index, SimulationSnapshot& out) const;
  /// The index of the last state at or before time t (0 when t is before the oldest).
  std::size_t indexAt(double t) const;

 private:
  std::size_t slot(std::size_t index) const { return (first_ + index) % capacity(); }

  Eigen::MatrixXd q_, v_;  // one column per slot
  std::vector<double> times_, applied_work_, damping_work_;
  std::vector<long> steps_;
  std::size_t first_ = 0, count_ = 0;
  SimulationSnapshot scratch_;
};

}  // namespace loopsim
