#include "gui/record_timeline.hpp"

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/record/record_summary.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/record/state_columns.hpp>
#include "render/model_view.hpp"
#include "render/plot_image.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;

RecordedRun::RecordedRun(const fs::path& csv) : file_(csv) {
  std::error_code ec;
  if (!fs::is_regular_file(csv, ec)) throw ModelError(csv.string(), "record", "not found (or not a regular file)");
  // The model comes from the scene embedded in the JSON summary beside the CSV (as `replay` rebuilds it).
  const RecordSummary summary = readRecordSummary(summaryPathFor(csv));
  scene_ = recordedScene(summary);

  const CsvTable table = readCsv(csv);
  const int t_column = table.requireColumn("t");
  const std::vector<std::string> names = configurationColumns(*scene_.model);
  std::vector<int> columns;
  for (const std::string& name : names) {
    const int c = table.column(name);
    if (c < 0) throw ModelError(csv.string(), name, "missing: the timeline needs the q columns (record with q in --record-columns)");
    columns.push_back(c);
  }
  if (table.rows.empty()) throw ModelError(csv.string(), "record", "has no rows");
  times_.reserve(table.rows.size());
  q_.resize(static_cast<Eigen::Index>(names.size()), static_cast<Eigen::Index>(table.rows.size()));
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    const double t = table.rows[r][static_cast<std::size_t>(t_column)];
    if (!std::isfinite(t) || (r > 0 && t < times_.back())) {
      throw ModelError(csv.string(), "line " + std::to_string(table.line_numbers[r]), "t must be finite and non-decreasing");
    }
    times_.push_back(t);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      q_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(r)) = table.rows[r][static_cast<std::size_t>(columns[i])];
    }
  }
}

std::size_t RecordedRun::rowAt(double t) const {
  const auto after = std::upper_bound(times_.begin(), times_.end(), t);
  return after == times_.begin() ? 0 : static_cast<std::size_t>(after - times_.begin()) - 1;
}

RecordTimeline::RecordTimeline(const std::vector<fs::path>& records) {
  if (records.empty() || records.size() > 2) {
    throw ModelError("", "records", "open one record, or two to overlay (got " + std::to_string(records.size()) + ")");
  }
  for (const fs::path& file : records) runs_.emplace_back(file);
  const Model& model = *runs_.front().scene().model;
  if (runs_.size() == 2) {
    const Model& other = *runs_[1].scene().model;
    if (configurationColumns(other) != configurationColumns(model)) {
      throw ModelError(records[1].string(), "record", "is of another model than " + records[0].string() +
                                                          " (its q columns differ): records overlay only on one model");
    }
    VectorX d(model.nv);
    divergence_.reserve(runs_[0].rows());
    for (std::size_t r = 0; r < runs_[0].rows(); ++r) {
      const std::size_t r2 = runs_[1].rowAt(runs_[0].time(r));
      if (runs_[1].time(r2) != runs_[0].time(r) || !runs_[0].q(r).allFinite() || !runs_[1].q(r2).allFinite()) {
        divergence_.push_back(std::nan(""));  // no row of the second record at this time
        continue;
      }
      difference(model, runs_[0].q(r), runs_[1].q(r2), d);
      divergence_.push_back(d.norm());
    }
  }
  for (const RecordedRun& run : runs_) {
    kinematics_.emplace_back(*run.scene().model);
    body_poses_.emplace_back(static_cast<std::size_t>(run.scene().model->nbodies()), Eigen::Matrix4f::Identity());
  }
  time_ = runs_.front().time(0);
  updateKinematics();
}

void RecordTimeline::setPlaying(bool playing) {
  if (playing && time_ >= runs_.front().duration()) time_ = runs_.front().time(0);  // at the end: play again
  playing_ = playing;
}

void RecordTimeline::advance(double wall_dt) {
  if (!playing_) return;
  time_ += wall_dt * speed_;
  if (time_ >= runs_.front().duration()) {
    time_ = runs_.front().duration();
    playing_ = false;
  }
}

void RecordTimeline::seek(double t) { time_ = std::clamp(t, runs_.front().time(0), runs_.front().duration()); }

void RecordTimeline::stepRows(long delta) {
  const RecordedRun& run = runs_.front();
  const long row = std::clamp(static_cast<long>(run.rowAt(time_)) + delta, 0L, static_cast<long>(run.rows()) - 1);
  time_ = run.time(static_cast<std::size_t>(row));
  playing_ = false;
}

Eigen::Vector4f RecordTimeline::colour(std::size_t k) const {
  // The plots' palette: blue and orange, complementary hues that stay apart where the ghosts overlap.
  const auto rgb = render::seriesColour(static_cast<int>(k));
  return {rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, kGhostAlpha};
}

double RecordTimeline::divergenceNow() const {
  return divergence_.empty() ? std::nan("") : divergence_[shownRow(0)];
}

void RecordTimeline::updateKinematics() {
  for (std::size_t k = 0; k < runs_.size(); ++k) {
    const Model& model = *runs_[k].scene().model;
    const auto q = runs_[k].q(shownRow(k));
    if (!q.allFinite()) continue;
    forwardKinematics(model, kinematics_[k], q);
    for (int b = 0; b < model.nbodies(); ++b) body_poses_[k][static_cast<std::size_t>(b)] = render::poseMatrix(kinematics_[k].oMi[b]);
  }
}

}  // namespace loopsim::app
