#pragma once
// Records (`run --record` / `gui --record` CSV) on a timeline (docs/gui.md): the
// recorded q of every row, played, paused, scrubbed and sped up; the state
// shown is always a recorded row exactly (the last row at or before the
// playback time; no interpolation). One record is drawn solid in the model's
// colours; two records of the same model are drawn as two translucent ghosts
// in distinct colours (neither hides the other), with the divergence
// ‖q_2 ⊖ q_1‖₂ of the rows shown at each time of the first.
#include <filesystem>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <loopsim/model/data.hpp>
#include <loopsim/scene/scene.hpp>

namespace loopsim::app {

/// One record: its scene (from the JSON summary beside it) and its q columns.
class RecordedRun {
 public:
  /// Throws ModelError naming the file (no summary, no q columns, bad rows).
  explicit RecordedRun(const std::filesystem::path& csv);

  const std::filesystem::path& file() const { return file_; }
  const Scene& scene() const { return scene_; }
  std::size_t rows() const { return times_.size(); }
  double time(std::size_t row) const { return times_[row]; }
  /// The recorded q of a row (exactly the CSV's numbers).
  Eigen::Ref<const Eigen::VectorXd> q(std::size_t row) const { return q_.col(static_cast<Eigen::Index>(row)); }
  /// The last row at or before t (0 before the first).
  std::size_t rowAt(double t) const;
  double duration() const { return times_.empty() ? 0.0 : times_.back(); }

 private:
  std::filesystem::path file_;
  Scene scene_;
  std::vector<double> times_;
  Eigen::MatrixXd q_;  // nq x rows
};

class RecordTimeline {
 public:
  /// One or two records; a second one must be of the same model (the same q columns).
  explicit RecordTimeline(const std::vector<std::filesystem::path>& records);

  std::size_t size() const { return runs_.size(); }
  const RecordedRun& run(std::size_t k) const { return runs_[k]; }

  // Playback.
  double time() const { return time_; }
  bool playing() const { return playing_; }
  void setPlaying(bool playing);
  double speed() const { return speed_; }
  void setSpeed(double speed) { speed_ = speed; }
  /// Advances the playback by wall_dt × speed (stops at the end).
  void advance(double wall_dt);
  /// Shows the record's state at t (clamped to the record), paused or not.
  void seek(double t);
  /// Moves by `delta` rows of the first record.
  void stepRows(long delta);
  /// The row of record k shown now.
  std::size_t shownRow(std::size_t k) const { return runs_[k].rowAt(time_); }

  /// ‖q_2 ⊖ q_1‖₂ per row of the first record (empty with one record), and now.
  const std::vector<double>& divergence() const { return divergence_; }
  double divergenceNow() const;

  /// Two records are ghosts: record k drawn translucent in colour(k) (RGB in [0, 1], alpha kGhostAlpha).
  bool ghosts() const { return runs_.size() == 2; }
  Eigen::Vector4f colour(std::size_t k) const;
  static constexpr float kGhostAlpha = 0.5f;

  /// Forward kinematics of the shown rows; body poses for drawing.
  void updateKinematics();
  const std::vector<Eigen::Matrix4f>& bodyPoses(std::size_t k) const { return body_poses_[k]; }

 private:
  std::vector<RecordedRun> runs_;
  std::vector<Data> kinematics_;
  std::vector<std::vector<Eigen::Matrix4f>> body_poses_;
  std::vector<double> divergence_;
  double time_ = 0.0, speed_ = 1.0;
  bool playing_ = true;
};

}  // namespace loopsim::app
