#include "gui/comparison_view.hpp"

#include "gui/history_view.hpp"

#include <algorithm>
#include <cmath>

#include <loopsim/algorithms/kinematics.hpp>
#include "render/model_view.hpp"
#include "render/plot_image.hpp"

namespace loopsim::app {

namespace {

ComparisonOptions optionsWithReference(const std::string& reference) {
  ComparisonOptions options;
  options.reference = reference;
  return options;
}

}  // namespace

ComparisonView::ComparisonView(const Scene& scene, const std::vector<std::string>& solvers, const std::string& reference,
                               double history_seconds, const SimulationSnapshot* start, int plot_frames)
    : comparison_(scene, solvers, optionsWithReference(reference)) {
  if (start != nullptr) comparison_.restore(std::span(start, 1));
  const Model& model = comparison_.reference().simulation->model();
  // The K rings share the session history's memory cap.
  const std::size_t capacity = StateHistory::capacityFor(history_seconds, comparison_.dt(), model.nq, model.nv,
                                                         512e6 / static_cast<double>(size()));
  for (std::size_t i = 0; i < size(); ++i) {
    kinematics_.emplace_back(model);
    body_poses_.emplace_back(static_cast<std::size_t>(model.nbodies()), Eigen::Matrix4f::Identity());
    log_divergence_.emplace_back(plot_frames);
    histories_.emplace_back(model.nq, model.nv, capacity);
    histories_.back().push(*comparison_.solvers()[i].simulation);
  }
  restore_scratch_.resize(size());
  reported_.assign(size(), false);
  updateKinematics();
}

void ComparisonView::advanceTo(long target_steps, std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (!viewed_ && comparison_.stepCount() < target_steps && comparison_.step()) {
    // Every solver's state of this step (a stopped one repeats its last: the rings stay in lockstep).
    for (std::size_t i = 0; i < size(); ++i) histories_[i].push(*comparison_.solvers()[i].simulation);
    if (deadline && std::chrono::steady_clock::now() > *deadline) break;
  }
}

void ComparisonView::moveView(long delta) {
  viewed_ = movedHistoryView(viewed_, delta, historySize());
  updateKinematics();
}

void ComparisonView::viewIndex(std::size_t index) {
  viewed_ = historyViewAt(index, historySize());
  updateKinematics();
}

long ComparisonView::stepAt(std::size_t index) const {
  // A stopped solver's ring repeats its last (older) state: the running ones hold the step's count.
  long step = 0;
  for (const StateHistory& h : histories_) step = std::max(step, h.step(index));
  return step;
}

double ComparisonView::shownTime() const {
  return viewed_ ? static_cast<double>(stepAt(*viewed_)) * comparison_.dt() : comparison_.time();
}

void ComparisonView::resumeFromView() {
  if (!viewed_) return;
  const std::size_t index = *viewed_;
  const long step = stepAt(index);
  for (std::size_t i = 0; i < size(); ++i) {
    histories_[i].get(index, restore_scratch_[i]);
    // A solver stopped before this step holds an older state: it stays stopped (restore skips it), at this step.
    restore_scratch_[i].steps = step;
  }
  comparison_.restore(restore_scratch_);
  for (StateHistory& h : histories_) h.truncateAfter(index);
  for (std::size_t i = 0; i < size(); ++i) reported_[i] = !comparison_.solvers()[i].running();
  viewed_.reset();
  updateKinematics();
}

void ComparisonView::updateKinematics() {
  for (std::size_t i = 0; i < size(); ++i) {
    const Simulation& sim = *comparison_.solvers()[i].simulation;
    const Model& model = sim.model();
    const auto q = viewed_ ? histories_[i].q(*viewed_) : Eigen::Ref<const VectorX>(sim.q());
    if (!q.allFinite()) continue;  // a NaN state keeps its last drawn pose
    forwardKinematics(model, kinematics_[i], q);
    for (int b = 0; b < model.nbodies(); ++b) {
      body_poses_[i][static_cast<std::size_t>(b)] = render::poseMatrix(kinematics_[i].oMi[b]);
    }
  }
}

Eigen::Vector4f ComparisonView::colour(std::size_t solver) const {
  const auto rgb = render::seriesColour(static_cast<int>(solver));
  const float alpha = static_cast<int>(solver) == comparison_.referenceIndex() ? 1.0f : kGhostAlpha;
  return {rgb[0] / 255.0f, rgb[1] / 255.0f, rgb[2] / 255.0f, alpha};
}

void ComparisonView::sampleFrame() {
  for (std::size_t i = 0; i < size(); ++i) {
    const ComparedSolver& s = comparison_.solvers()[i];
    // log10 of the divergence; an exact zero (the reference itself, or bit-identical runs) at the floor -17.
    const double d = s.divergence;
    log_divergence_[i].push(static_cast<float>(d > 0.0 ? std::max(-17.0, std::log10(d)) : -17.0));
  }
}

std::vector<std::size_t> ComparisonView::newlyStopped() {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < size(); ++i) {
    if (!comparison_.solvers()[i].running() && !reported_[i]) {
      reported_[i] = true;
      out.push_back(i);
    }
  }
  return out;
}

}  // namespace loopsim::app
