#include "gui/comparison_view.hpp"

#include <cmath>

#include "algorithms/kinematics.hpp"
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
                               int plot_frames)
    : comparison_(scene, solvers, optionsWithReference(reference)) {
  const Model& model = comparison_.reference().simulation->model();
  for (std::size_t i = 0; i < size(); ++i) {
    kinematics_.emplace_back(model);
    body_poses_.emplace_back(static_cast<std::size_t>(model.nbodies()), Eigen::Matrix4f::Identity());
    log_divergence_.emplace_back(plot_frames);
  }
  reported_.assign(size(), false);
  updateKinematics();
}

void ComparisonView::advanceTo(long target_steps, std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (comparison_.stepCount() < target_steps && comparison_.step()) {
    if (deadline && std::chrono::steady_clock::now() > *deadline) break;
  }
}

void ComparisonView::updateKinematics() {
  for (std::size_t i = 0; i < size(); ++i) {
    const Simulation& sim = *comparison_.solvers()[i].simulation;
    const Model& model = sim.model();
    if (!sim.q().allFinite()) continue;  // a NaN state keeps its last drawn pose
    forwardKinematics(model, kinematics_[i], sim.q());
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
