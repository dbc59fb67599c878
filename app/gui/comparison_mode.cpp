#include "gui/comparison_mode.hpp"

#include <GLFW/glfw3.h>
#include <spdlog/fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <cmath>

#include "gui/panels.hpp"
#include "gui/scripted_run_report.hpp"

namespace loopsim::app {

std::unique_ptr<ComparisonMode> ComparisonMode::start(GuiContext& context, LiveSessionMode& live, bool from_shown_state) {
  std::optional<SimulationSnapshot> start;
  if (from_shown_state) {
    SimulationSession& session = live.session();
    start.emplace();
    if (session.viewingPast()) session.history().get(*session.viewedIndex(), *start);
    else session.simulation().snapshot(*start);
  }
  std::unique_ptr<ComparisonMode> mode(new ComparisonMode(context, live, std::move(start)));
  if (!mode->restart()) return nullptr;
  return mode;
}

ComparisonMode::ComparisonMode(GuiContext& context, LiveSessionMode& live, std::optional<SimulationSnapshot> start)
    : context_(context), live_(live), start_(std::move(start)) {}

bool ComparisonMode::restart() {
  GuiState& state = context_.state;
  // From the scene's start or the kept state, with the settings of the panel (as a reset would use them).
  Scene scene = live_.session().sceneForReset();
  scene.time_constant = state.time_constant;
  scene.projection = state.projection;
  scene.solver_settings = state.settings;
  try {
    view_ = std::make_unique<ComparisonView>(scene, state.comparedRuns(), state.compare_reference,
                                             live_.session().historySeconds(), start_ ? &*start_ : nullptr);
  } catch (const std::exception& e) {
    state.error = std::string("Cannot compare these solvers:\n") + e.what();
    spdlog::error("cannot compare {}: {}", fmt::join(state.comparedRuns(), ","), e.what());
    context_.failures.compare = true;
    return false;
  }
  state.comparing = true;
  const SolverComparison& c = view_->comparison();
  target_time_ = c.time();
  std::string names;
  for (const ComparedSolver& s : c.solvers()) names += (names.empty() ? "" : ", ") + s.name;
  view_->comparison().before_step = [&perturbation = context_.perturbation](std::size_t, Simulation& simulation) {
    perturbation.beforeStep(simulation);
  };
  const std::string from = fmt::format("t = {:.6g} s (step {})", c.time(), c.stepCount());
  state.say("comparing " + names + " from " + from + " (reference " + c.reference().name + ")");
  spdlog::info("compare: {} from {}, reference {}", names, from, c.reference().name);
  // The side-by-side step: across the view (horizontal), the model's size apart.
  Eigen::Vector3f lo, hi;
  side_by_side_step_.setZero();
  if (live_.modelView().bounds(view_->bodyPoses(0), lo, hi)) {
    const render::OrbitCamera& camera = context_.camera;
    Eigen::Vector3f forward = camera.lookat - camera.eye();
    Eigen::Vector3f right = forward.cross(Eigen::Vector3f::UnitZ());
    if (right.norm() < 1e-6f) right = Eigen::Vector3f::UnitX();
    right.normalize();
    const Eigen::Vector3f size = hi - lo;
    const float across = std::abs(size.x() * right.x()) + std::abs(size.y() * right.y()) + std::abs(size.z() * right.z());
    side_by_side_step_ = right * (across + 0.25f * size.maxCoeff());
  }
  return true;
}

void ComparisonMode::onKeys(const KeyPresses& keys, GuiRequests& requests) {
  simulationKeys(keys, view_->viewingPast(), requests);
}

void ComparisonMode::showHistory(long delta, std::optional<std::size_t> index) {
  context_.state.running = false;  // looking at the past pauses
  if (index) view_->viewIndex(*index);
  view_->moveView(delta);
  target_time_ = view_->comparison().time();
  context_.logEvent(fmt::format("comparison shows t = {:.6g} s", view_->shownTime()));
}

void ComparisonMode::resumeFromView() {
  if (!view_->viewingPast()) return;
  view_->resumeFromView();
  const SolverComparison& c = view_->comparison();
  spdlog::info("compare: resumed all {} solvers from t = {} s (step {}); the later states were dropped", view_->size(),
               c.time(), c.stepCount());
  context_.state.say("comparison resumed from t = " + std::to_string(c.time()) + " s");
  target_time_ = c.time();
}

void ComparisonMode::setStabilization(double time_constant, bool projection) {
  GuiState& state = context_.state;
  // The panel shows what is in force, and a comparison restarted later takes it.
  state.time_constant = time_constant;
  state.projection = projection;
  SolverComparison& c = view_->comparison();
  try {
    int changed = 0;
    for (ComparedSolver& s : c.solvers()) {
      if (!s.running()) continue;
      s.simulation->setStabilization(time_constant, projection);
      ++changed;
    }
    spdlog::info("compare: stabilization: T = {} s, projection {} from t = {} s (step {}) for {} solvers", time_constant,
                 projection ? "on" : "off", c.time(), c.stepCount(), changed);
    state.say("comparison: Baumgarte T = " + std::to_string(time_constant) + " s, projection " +
              (projection ? "on" : "off") + " from t = " + std::to_string(c.time()) + " s");
  } catch (const std::exception& e) {
    state.error = std::string("Cannot change the comparison's stabilization:\n") + e.what();
    spdlog::error("cannot change the comparison's stabilization: {}", e.what());
    context_.failures.change = true;
  }
}

void ComparisonMode::reset() {
  if (restart()) context_.reset_camera();
  context_.logEvent("comparison restarted from " + whereNow());
}

void ComparisonMode::step() {
  resumeFromView();  // a step from a past state continues from it
  advanceTo(view_->comparison().stepCount() + 1, std::nullopt);
  target_time_ = view_->comparison().time();
  context_.logEvent("comparison step to " + whereNow());
}

void ComparisonMode::advanceTo(long target_steps, std::optional<Clock::time_point> deadline) {
  // --set-stabilization reaches every compared solver at its step, as the panel's change does.
  const auto& changes = context_.options.stabilization_changes;
  std::size_t& next = context_.script.next_stabilization;
  while (next < changes.size()) {
    const long at = view_->stepsFor(changes[next].time);
    if (at > target_steps) break;
    view_->advanceTo(at, deadline);
    if (view_->comparison().stepCount() < at) return;  // out of time, or every solver stopped
    const auto& change = changes[next++];
    setStabilization(change.time_constant, change.projection);
  }
  view_->advanceTo(target_steps, deadline);
}

void ComparisonMode::advance(const FrameBudget& budget) {
  const GuiState& state = context_.state;
  if (state.running && view_->viewingPast()) resumeFromView();  // running from a past state resumes there
  SolverComparison& c = view_->comparison();
  if (!state.running || !c.anyRunning()) {
    target_time_ = c.time();
    return;
  }
  target_time_ += state.speed() * budget.advance;
  const long target = view_->stepsFor(target_time_);
  advanceTo(target, budget.deadline());
  if (c.stepCount() < target && c.anyRunning()) target_time_ = c.time();  // fell behind: no debt
  view_->sampleFrame();
}

void ComparisonMode::afterAdvance() {
  // A solver that stops pauses alone (the others go on); all stopped: paused.
  for (const std::size_t i : view_->newlyStopped()) {
    const ComparedSolver& s = view_->comparison().solvers()[i];
    spdlog::error("compare: {} stopped: {}", s.name, s.failure);
    context_.state.say(s.name + " stopped: " + s.failure);
  }
  if (!view_->comparison().anyRunning()) context_.state.running = false;
  live_.session().updateKinematics();  // the waiting session's (the camera follows its selected body)
  view_->updateKinematics();
}

void ComparisonMode::drawScene(float) {
  // The reference solid first (it writes depth), then the ghosts: coloured outlines (opaque
  // wireframe, so that where a run agrees its lines lie on the reference and the reference's
  // own colour still shows between them) or translucent.
  const int reference = view_->comparison().referenceIndex();
  std::vector<std::size_t> order{static_cast<std::size_t>(reference)};
  for (std::size_t i = 0; i < view_->size(); ++i) {
    if (static_cast<int>(i) != reference) order.push_back(i);
  }
  for (const std::size_t i : order) {
    const ComparedSolver& s = view_->comparison().solvers()[i];
    const bool is_reference = static_cast<int>(i) == reference;
    render::ModelStyle style;
    style.wireframe = context_.state.toggles.wireframe || (!is_reference && context_.state.compare_ghost_outlines);
    style.use_tint = true;
    style.tint = view_->colour(i);
    if (!is_reference && context_.state.compare_ghost_outlines) style.tint[3] = 1.0f;
    if (s.simulation->diverged()) style.highlighted_body = s.simulation->model().jointId(s.simulation->divergence()->joint);
    live_.modelView().draw(context_.renderer, poses(i), style);
  }
}

void ComparisonMode::drawPanels() {
  drawComparisonPanel(context_.state, *view_);
  drawViewLegend(context_.state, *view_);
}

std::string ComparisonMode::whereNow() const {
  return fmt::format("t = {:.6g} s (step {})", view_->comparison().time(), view_->comparison().stepCount());
}

std::vector<Eigen::Matrix4f> ComparisonMode::poses(std::size_t solver) const {
  std::vector<Eigen::Matrix4f> poses = view_->bodyPoses(solver);
  Eigen::Vector3f offset = Eigen::Vector3f::Zero();
  if (context_.state.compare_side_by_side) {
    const float centred = static_cast<float>(solver) - 0.5f * static_cast<float>(view_->size() - 1);
    offset = centred * side_by_side_step_;
  }
  for (Eigen::Matrix4f& pose : poses) pose.block<3, 1>(0, 3) += offset;
  return poses;
}

std::vector<Eigen::Matrix4f> ComparisonMode::interactionPoses() const {
  return poses(static_cast<std::size_t>(view_->comparison().referenceIndex()));
}

bool ComparisonMode::viewBounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const {
  // The waiting session's pose too (where the comparison started from, or where it went on).
  if (!live_.viewBounds(lo, hi)) return false;
  for (std::size_t i = 0; i < view_->size(); ++i) {
    Eigen::Vector3f a, b;
    if (!live_.modelView().bounds(poses(i), a, b)) continue;
    lo = lo.cwiseMin(a);
    hi = hi.cwiseMax(b);
  }
  return true;
}

void ComparisonMode::addToReport(ScriptedRunReport& report) const {
  std::vector<std::vector<Eigen::Matrix4f>> all;
  for (std::size_t i = 0; i < view_->size(); ++i) all.push_back(poses(i));
  report.comparison(*view_, all, context_.state.compare_side_by_side);
}

}  // namespace loopsim::app
