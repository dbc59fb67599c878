#pragma once
// A fixed-capacity ring of floats for ImGui::PlotLines (its values_offset
// takes the ring's oldest entry); pushing never allocates.
#include <algorithm>
#include <vector>

namespace loopsim::app {

class SeriesBuffer {
 public:
  explicit SeriesBuffer(int capacity) : values_(static_cast<std::size_t>(std::max(1, capacity)), 0.0f) {}
  void push(float x) {
    values_[static_cast<std::size_t>(next_)] = x;
    next_ = (next_ + 1) % capacity();
    count_ = std::min(count_ + 1, capacity());
  }
  void clear() { next_ = count_ = 0; }
  int capacity() const { return static_cast<int>(values_.size()); }
  int count() const { return count_; }
  /// Index in data() of the oldest value (PlotLines' values_offset).
  int offset() const { return count_ < capacity() ? 0 : next_; }
  const float* data() const { return values_.data(); }
  float latest() const { return count_ == 0 ? 0.0f : values_[static_cast<std::size_t>((next_ + capacity() - 1) % capacity())]; }

 private:
  std::vector<float> values_;
  int next_ = 0, count_ = 0;
};

}  // namespace loopsim::app
