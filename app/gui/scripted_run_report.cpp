#include "gui/scripted_run_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace loopsim::app {

void ScriptedRunReport::frames(const ScriptedRunTotals& totals) const {
  const double wall = totals.wall_seconds, frames = static_cast<double>(totals.frames);
  // One sample is no multisampling (--msaa 0 or 1, or what the driver allowed).
  const std::string msaa = totals.msaa > 1 ? "MSAA " + std::to_string(totals.msaa) : std::string("MSAA off");
  std::printf("gui: %ld frames in %.3f s: %.1f FPS (%dx%d, %s, physics included); simulated %.4f s (RTF %.2f)\n",
              totals.frames, wall, frames / wall, width_, height_, msaa.c_str(), totals.simulated_seconds,
              totals.simulated_seconds / wall);
  std::printf("gui: per frame %.2f ms physics, %.2f ms drawing and the rest\n", 1e3 * totals.physics_seconds / frames,
              1e3 * (wall - totals.physics_seconds) / frames);
}

void ScriptedRunReport::session(const SimulationSession& session) const {
  Eigen::Vector4f box;
  if (screenBox(session.bodyPoses(), box)) {
    std::printf("gui: model on screen: %.0f %.0f %.0f %.0f (x0 y0 x1 y1, pixels)\n", box[0], box[1], box[2], box[3]);
  }
  const Simulation& sim = session.simulation();
  std::printf("gui: t = %.6f s, solver %s\n", sim.time(), sim.scene().solver.c_str());
  std::printf("gui: q =");
  for (Eigen::Index i = 0; i < sim.q().size(); ++i) std::printf(" %.17g", sim.q()[i]);
  std::printf(" (position violation %.3e)\n", sim.positionViolation());
  const StateHistory& h = session.history();
  std::printf("gui: history: %zu states, t = %.6f to %.6f s (last %g s)", h.size(), h.time(0), h.time(h.size() - 1),
              session.historySeconds());
  if (session.viewingPast()) std::printf(", viewing t = %.6f s", session.shownTime());
  std::printf("\n");
}

void ScriptedRunReport::records(const RecordTimeline& timeline) const {
  // The state shown, read back from the timeline (the q drawn), at full precision.
  for (std::size_t k = 0; k < timeline.size(); ++k) {
    const RecordedRun& run = timeline.run(k);
    const std::size_t row = timeline.shownRow(k);
    std::printf("gui: record %zu: %s t = %.17g s, row %zu of %zu, q =", k + 1, run.file().string().c_str(), run.time(row), row,
                run.rows());
    for (Eigen::Index i = 0; i < run.q(row).size(); ++i) std::printf(" %.17g", run.q(row)[i]);
    std::printf("\n");
  }
  if (!timeline.ghosts()) return;
  for (std::size_t k = 0; k < timeline.size(); ++k) {
    const Eigen::Vector4f c = timeline.colour(k);
    Eigen::Vector4f box(0, 0, 0, 0);
    screenBox(timeline.bodyPoses(k), box);
    std::printf("gui: record ghost %zu rgb %d %d %d alpha %.2f box %.0f %.0f %.0f %.0f\n", k + 1,
                static_cast<int>(std::lround(c[0] * 255)), static_cast<int>(std::lround(c[1] * 255)),
                static_cast<int>(std::lround(c[2] * 255)), static_cast<double>(c[3]), box[0], box[1], box[2], box[3]);
  }
  std::printf("gui: records divergence %.17g\n", timeline.divergenceNow());
}

void ScriptedRunReport::comparison(const ComparisonView& view, const std::vector<std::vector<Eigen::Matrix4f>>& poses,
                                   bool side_by_side) {
  const SolverComparison& c = view.comparison();
  std::printf("gui: compare: %zu solvers, t = %.6f s, reference %s, layout %s\n", view.size(), c.time(),
              c.reference().name.c_str(), side_by_side ? "side-by-side" : "overlay");
  for (std::size_t i = 0; i < view.size(); ++i) {
    const ComparedSolver& s = c.solvers()[i];
    const Eigen::Vector4f colour = view.colour(i);
    Eigen::Vector4f ghost_box(0, 0, 0, 0);
    screenBox(poses[i], ghost_box);
    std::printf("gui: ghost %zu %s %s rgb %d %d %d alpha %.2f box %.0f %.0f %.0f %.0f divergence %.3e %s\n", i,
                s.name.c_str(), static_cast<int>(i) == c.referenceIndex() ? "reference" : "ghost",
                static_cast<int>(std::lround(colour[0] * 255)), static_cast<int>(std::lround(colour[1] * 255)),
                static_cast<int>(std::lround(colour[2] * 255)), static_cast<double>(colour[3]), ghost_box[0], ghost_box[1],
                ghost_box[2], ghost_box[3], s.divergence, s.running() ? "running" : ("stopped: " + s.failure).c_str());
  }
  std::printf("gui: compare history: %zu states, t = %.6f to %.6f s", view.historySize(), view.history(0).time(0),
              view.history(0).time(view.historySize() - 1));
  if (view.viewingPast()) std::printf(", viewing t = %.6f s", view.shownTime());
  std::printf("\n");
  // The reference's current q at full precision (it reads back exactly).
  const VectorX& reference_q = c.reference().simulation->q();
  std::printf("gui: compare reference q =");
  for (Eigen::Index i = 0; i < reference_q.size(); ++i) std::printf(" %.17g", reference_q[i]);
  std::printf("\n");
  const bool stopped = std::any_of(c.solvers().begin(), c.solvers().end(), [](const ComparedSolver& s) { return !s.running(); });
  if (stopped && exit_code_ == 0) exit_code_ = kExitGuiDiverged;
}

int ScriptedRunReport::finish(const GuiState& state, const SimulationSession* session, bool failed) {
  const bool diverged = session != nullptr && session->simulation().diverged();
  // The docked layout of the last frame (ImGui pixels from the top left): the panels and the area they leave.
  for (const GuiState::DockedPanel& p : state.layout.panels) {
    std::printf("gui: panel '%s' at %.0f %.0f %.0f %.0f, content %.0f of %.0f px wide\n", p.name.c_str(),
                static_cast<double>(p.rect.x0), static_cast<double>(p.rect.y0), static_cast<double>(p.rect.x1),
                static_cast<double>(p.rect.y1), static_cast<double>(p.content_width), static_cast<double>(p.inner_width));
  }
  std::printf("gui: free view area %.0f %.0f %.0f %.0f\n", static_cast<double>(state.layout.x0), static_cast<double>(state.layout.y0),
              static_cast<double>(state.layout.x1), static_cast<double>(state.layout.y1));
  if (!state.error.empty()) std::printf("gui: error shown: %s\n", state.error.c_str());
  if (diverged) std::printf("gui: %s\n", state.divergence.c_str());
  if (failed && exit_code_ == 0) exit_code_ = 1;
  if (diverged && exit_code_ == 0) exit_code_ = kExitGuiDiverged;
  return exit_code_;
}

bool ScriptedRunReport::screenBox(std::span<const Eigen::Matrix4f> poses, Eigen::Vector4f& box) const {
  Eigen::Vector3f lo, hi;
  if (view_ == nullptr || !view_->bounds(poses, lo, hi)) return false;
  const float width = static_cast<float>(width_), height = static_cast<float>(height_);
  box << width, height, 0.0f, 0.0f;
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3f p((corner & 1) ? hi.x() : lo.x(), (corner & 2) ? hi.y() : lo.y(), (corner & 4) ? hi.z() : lo.z());
    Eigen::Vector2f pixel;
    if (!camera_.project(p, width, height, pixel)) continue;
    box[0] = std::min(box[0], pixel.x());
    box[1] = std::min(box[1], pixel.y());
    box[2] = std::max(box[2], pixel.x());
    box[3] = std::max(box[3], pixel.y());
  }
  box[0] = std::clamp(box[0], 0.0f, width);
  box[2] = std::clamp(box[2], 0.0f, width);
  box[1] = std::clamp(box[1], 0.0f, height);
  box[3] = std::clamp(box[3], 0.0f, height);
  return box[2] > box[0] && box[3] > box[1];
}

}  // namespace loopsim::app
