#include "gui/sim_session.hpp"

#include <loopsim/scene/run_length.hpp>

#include "gui/history_view.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>
#include <loopsim/model/quiet_log.hpp>
#include "gui/joint_sliders.hpp"
#include <loopsim/record/record_row.hpp>
#include "render/model_view.hpp"
#include <loopsim/scene/model_scene.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim::app {

namespace fs = std::filesystem;

namespace {

std::size_t stepsPerSecond(const Scene& scene) {
  return static_cast<std::size_t>(std::clamp(std::llround(1.0 / scene.dt), 1LL, 100000LL));
}

}  // namespace

Scene loadSceneOrModel(const fs::path& file, const ModelSceneOptions& model_file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  if (extension == ".urdf" || extension == ".xml" || extension == ".mjcf") {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw ModelError(file.string(), "file", "not found (or not a regular file)");
    // A floating-base model lands on a ground plane put under its feet (as `run MODEL`).
    ModelScene one = loadModelScene(file, extension == ".urdf" ? ModelFormat::urdf : ModelFormat::mjcf, model_file);
    if (one.lift) {
      spdlog::info("{} floats: put on the ground at z = 0, moved up by {:.4g} m so that it starts just above it",
                   file.string(), *one.lift);
    }
    return std::move(one.scene);
  }
  return loadScene(file);
}

SimulationSession::SimulationSession(Scene scene, fs::path file, int plot_frames, double history_seconds)
    : solve_us_plot(plot_frames),
      violation_plot(plot_frames),
      energy_plot(plot_frames),
      time_plot(plot_frames),
      contacts_plot(plot_frames),
      scene_(std::move(scene)),
      file_(std::move(file)),
      simulation_(std::make_unique<Simulation>(scene_)),
      history_seconds_(history_seconds),
      history_(scene_.model->nq, scene_.model->nv,
               StateHistory::capacityFor(history_seconds, scene_.dt, scene_.model->nq, scene_.model->nv)),
      kinematics_(*scene_.model),
      body_poses_(static_cast<std::size_t>(scene_.model->nbodies()), Eigen::Matrix4f::Identity()),
      recent_solve_us_(stepsPerSecond(scene_)),
      recent_iterations_(stepsPerSecond(scene_)),
      median_scratch_(stepsPerSecond(scene_)) {
  for (const SolverInfo& info : solverRegistry()) {
    const auto refusal = refuseSolver(scene_.solverProblem(), info.name);
    solver_refusals_[info.name] = refusal ? refusal->reason : std::string();
  }
  history_.push(*simulation_);
  updateKinematics();
}

const std::string& SimulationSession::solverRefusal(const std::string& name) const {
  static const std::string none;
  const auto it = solver_refusals_.find(name);
  return it == solver_refusals_.end() ? none : it->second;
}

void SimulationSession::setHistorySeconds(double seconds) {
  const Model& model = simulation_->model();
  history_ = StateHistory(model.nq, model.nv, StateHistory::capacityFor(seconds, simulation_->scene().dt, model.nq, model.nv));
  history_seconds_ = seconds;
  viewed_.reset();
  history_.push(*simulation_);
  updateKinematics();
}

void SimulationSession::moveView(long delta) {
  if (history_.size() == 0) return;
  viewed_ = movedHistoryView(viewed_, delta, history_.size());
  updateKinematics();
}

void SimulationSession::viewIndex(std::size_t index) {
  if (history_.size() == 0) return;
  viewed_ = historyViewAt(index, history_.size());
  updateKinematics();
}

double SimulationSession::shownTime() const { return viewed_ ? history_.time(*viewed_) : simulation_->time(); }

void SimulationSession::resumeFromView() {
  if (!viewed_) return;
  history_.get(*viewed_, restore_scratch_);
  simulation_->restore(restore_scratch_);
  history_.truncateAfter(*viewed_);
  viewed_.reset();
  recent_next_ = recent_count_ = 0;
  updateKinematics();
}

namespace {

// The largest move of the slider's joint between two projections (rad or m).
constexpr double kSliderContinuationStep = 0.05;

// Revolute joints without limits into [-π, π]: the same pose, on the slider's scale.
void wrapUnlimitedRevoluteJoints(const Model& model, VectorX& q) {
  for (int j = 1; j <= model.njoints(); ++j) {
    const auto jj = static_cast<std::size_t>(j);
    if (model.joint_types[jj] != JointType::Revolute) continue;
    const auto iq = static_cast<Eigen::Index>(model.idx_q[jj]);
    if (std::isfinite(model.lower_position_limit[iq]) || std::isfinite(model.upper_position_limit[iq])) continue;
    q[iq] = std::remainder(q[iq], 2.0 * std::numbers::pi);
  }
}

// A pose whose loops pushed a limited joint past its limits is refused, naming the joint.
void requireJointsInRange(const Model& model, const VectorX& q, const std::string& file) {
  for (int j = 1; j <= model.njoints(); ++j) {
    const auto jj = static_cast<std::size_t>(j);
    if (model.joint_nq[jj] != 1) continue;
    const auto iq = static_cast<Eigen::Index>(model.idx_q[jj]);
    const double lower = model.lower_position_limit[iq], upper = model.upper_position_limit[iq];
    if (q[iq] < lower - 1e-9 || q[iq] > upper + 1e-9) {
      throw ModelError(file, model.joint_names[jj],
                       "the loops would move it to " + numberText(q[iq]) + ", outside its range [" +
                           numberText(lower) + ", " + numberText(upper) + "]");
    }
  }
}

}  // namespace

VectorX SimulationSession::poseWithJointAt(VectorX q, int joint, double value, const char* element) const {
  const Model& model = simulation_->model();
  if (joint < 1 || joint > model.njoints() || model.joint_nq[static_cast<std::size_t>(joint)] != 1) {
    throw ModelError(file_.string(), element, "joint " + std::to_string(joint) + " is not a 1-dof joint of the model");
  }
  if (!std::isfinite(value)) throw ModelError(file_.string(), model.joint_names[static_cast<std::size_t>(joint)], "position must be finite");
  const auto [lower, upper] = jointSliderRange(model, joint);
  if (value < lower || value > upper) {
    throw ModelError(file_.string(), model.joint_names[static_cast<std::size_t>(joint)],
                     "position " + numberText(value) + " is outside the joint's range [" + numberText(lower) + ", " +
                         numberText(upper) + "]");
  }
  const Eigen::Index iq = model.idx_q[static_cast<std::size_t>(joint)];
  // The joint keeps its value; the others move to close the loops (throws when they
  // cannot). In small steps, each projection starting from the last pose: the loop
  // follows the branch it is on instead of jumping to another (or winding a passive
  // joint by whole turns).
  if (simulation_->constraints().dimension() > 0) {
    const QuietLogAtLeast quiet(spdlog::level::warn);  // a projection logs each of the steps
    VectorX v = VectorX::Zero(model.nv);
    wrapUnlimitedRevoluteJoints(model, q);  // the same pose: the move starts from the slider's scale
    const double start = q[iq];
    const int pieces = std::max(1, static_cast<int>(std::ceil(std::abs(value - start) / kSliderContinuationStep)));
    for (int k = 1; k <= pieces; ++k) {
      q[iq] = start + (value - start) * k / pieces;
      makeConsistent(simulation_->constraints(), q, v, {joint});
      wrapUnlimitedRevoluteJoints(model, q);
    }
    requireJointsInRange(model, q, file_.string());
  }
  q[iq] = value;
  return q;
}

void SimulationSession::setJointPosition(int joint, double value) {
  SimulationSnapshot state;
  simulation_->snapshot(state);
  state.v.setZero();
  state.q = poseWithJointAt(state.q, joint, value, "joint slider");
  simulation_->holdPose(state.q);  // throws before changing anything
  simulation_->restore(state);
  // The edit is no motion: the energy balance starts again here.
  simulation_->restartEnergyBalance();
  history_.clear();
  viewed_.reset();
  history_.push(*simulation_);
  updateKinematics();
}

std::string SimulationSession::controlRefusal(int joint) const {
  const Simulation& sim = *simulation_;
  const Model& model = sim.model();
  const ControllerSpec& spec = sim.controller().spec();
  if (spec.kind != ControllerSpec::Kind::PdHold && spec.kind != ControllerSpec::Kind::Sinusoid) {
    return "the scene's controller has no position targets (a pd_hold or sinusoid controller has)";
  }
  if (joint < 1 || joint > model.njoints() || model.joint_nv[static_cast<std::size_t>(joint)] != 1) return "not a 1-dof joint";
  if (sim.controller().actuatedMask()[model.idx_v[static_cast<std::size_t>(joint)]] == 0.0) return "not actuated";
  for (const SinusoidDrive& drive : spec.drives) {
    if (drive.joint == joint) return "follows its sinusoid drive";
  }
  return {};
}

void SimulationSession::setControlTarget(int joint, double value) {
  if (const std::string refusal = controlRefusal(joint); !refusal.empty()) {
    const Model& model = simulation_->model();
    const std::string name = joint >= 1 && joint <= model.njoints() ? model.joint_names[static_cast<std::size_t>(joint)] : std::to_string(joint);
    throw ModelError(file_.string(), "control '" + name + "'", refusal);
  }
  // The held pose with this joint's target moved, the loops closed at it; the controller
  // recomputes its holding feed-forward there (throws, keeping the old target, if it cannot).
  simulation_->holdPose(poseWithJointAt(simulation_->controller().heldPose(), joint, value, "control slider"));
}

std::size_t SimulationSession::saveKeyframe() {
  Keyframe key;
  simulation_->snapshot(key.state);
  key.held_pose = simulation_->controller().heldPose();
  keyframes_.push_back(std::move(key));
  return keyframes_.size() - 1;
}

void SimulationSession::loadKeyframe(std::size_t index) {
  if (index >= keyframes_.size()) {
    throw ModelError(file_.string(), "keyframe", "no keyframe " + std::to_string(index + 1) + " (" +
                                                     std::to_string(keyframes_.size()) + " saved)");
  }
  const Keyframe& key = keyframes_[index];
  simulation_->holdPose(key.held_pose);  // throws before changing anything
  simulation_->restore(key.state);
  history_.clear();
  viewed_.reset();
  history_.push(*simulation_);
  updateKinematics();
}

void SimulationSession::reset() {
  auto fresh = std::make_unique<Simulation>(scene_);
  simulation_ = std::move(fresh);
  recent_next_ = recent_count_ = 0;
  history_.clear();
  viewed_.reset();
  history_.push(*simulation_);
  solve_us_plot.clear();
  time_plot.clear();
  violation_plot.clear();
  energy_plot.clear();
  contacts_plot.clear();
  updateKinematics();
}

void SimulationSession::setSolver(const std::string& name, const SolverSettings& settings) {
  // The panel's tolerance is checked as the scene file's is.
  if (!(settings.tolerance > 0.0) || settings.tolerance > kMaxResidualTolerance) {
    throw ModelError(file_.string(), "tolerance",
                     "must be in (0, " + numberText(kMaxResidualTolerance) + "], got " + numberText(settings.tolerance) +
                         toleranceHint(settings.tolerance));
  }
  Scene candidate = simulation_->scene();
  candidate.solver_settings = settings;
  requireSolver(candidate.solverProblem(), name);
  simulation_->setSolver(name, settings);
  scene_.solver = name;  // a reset keeps the user's choice
  scene_.solver_settings = settings;
}

void SimulationSession::setContactSolver(ContactSolverKind kind) {
  simulation_->setContactSolver(kind);
  scene_.contact_solver = kind;  // a reset keeps the user's choice
}

long SimulationSession::stepsFor(double t) const { return boundedStepCount(t, simulation_->scene().dt); }

long SimulationSession::advanceTo(long target_steps, std::optional<std::chrono::steady_clock::time_point> deadline) {
  long taken = 0;
  while (simulation_->stepCount() < target_steps && !simulation_->diverged()) {
    if (viewed_) break;  // a past state is shown: resume from it (or return to the newest) first
    if (before_step) before_step(*simulation_);
    if (recorder_) recorder_->step(*simulation_);
    else simulation_->step();
    recordStepStatistics();
    if (!simulation_->diverged()) history_.push(*simulation_);
    ++taken;
    if (deadline && std::chrono::steady_clock::now() > *deadline) break;
  }
  return taken;
}

void SimulationSession::recordStepStatistics() {
  const StepRecord& step = simulation_->lastStep();
  recent_solve_us_[recent_next_] = step.solve_us;
  recent_iterations_[recent_next_] = step.iterations;
  recent_next_ = (recent_next_ + 1) % recent_solve_us_.size();
  recent_count_ = std::min(recent_count_ + 1, recent_solve_us_.size());
}

void SimulationSession::startRecording(const fs::path& csv, bool overwrite) {
  RecordOptions options;
  options.groups = defaultRecordGroups();  // the format of `run --record` (perturbation columns included)
  recorder_ = std::make_unique<SimulationRecorder>(*simulation_, csv, overwrite, options);
}

void SimulationSession::finishRecording(const std::string& command_line) {
  if (!recorder_) return;
  recorder_->finish(*simulation_, command_line);
  recorder_.reset();
}

std::optional<Eigen::Vector3d> SimulationSession::lastSaneBodyPosition(int body, double max_travel) const {
  const Model& model = simulation_->model();
  if (body <= 0 || body >= model.nbodies() || history_.size() == 0) return std::nullopt;
  Data data(model);
  const auto positionAt = [&](std::size_t k) -> std::optional<Eigen::Vector3d> {
    if (!history_.q(k).allFinite()) return std::nullopt;
    forwardKinematics(model, data, history_.q(k));
    const Eigen::Vector3d p = data.oMi[static_cast<std::size_t>(body)].t;
    if (!p.allFinite()) return std::nullopt;
    return p;
  };
  const std::optional<Eigen::Vector3d> start = positionAt(0);
  if (!start) return std::nullopt;
  for (std::size_t k = history_.size(); k-- > 0;) {
    const std::optional<Eigen::Vector3d> p = positionAt(k);
    if (p && (*p - *start).norm() <= max_travel) return p;
  }
  return start;
}

void SimulationSession::updateKinematics() {
  const Model& model = simulation_->model();
  if (viewed_) forwardKinematics(model, kinematics_, history_.q(*viewed_));
  else forwardKinematics(model, kinematics_, simulation_->q());
  for (int i = 0; i < model.nbodies(); ++i) body_poses_[static_cast<std::size_t>(i)] = render::poseMatrix(kinematics_.oMi[i]);
}

double SimulationSession::recentMedianSolveUs() {
  if (recent_count_ == 0) return 0.0;
  std::copy_n(recent_solve_us_.begin(), recent_count_, median_scratch_.begin());
  const auto middle = median_scratch_.begin() + static_cast<std::ptrdiff_t>(recent_count_ / 2);
  std::nth_element(median_scratch_.begin(), middle, median_scratch_.begin() + static_cast<std::ptrdiff_t>(recent_count_));
  return *middle;
}

double SimulationSession::recentMeanIterations() const {
  if (recent_count_ == 0) return 0.0;
  return std::accumulate(recent_iterations_.begin(), recent_iterations_.begin() + static_cast<std::ptrdiff_t>(recent_count_), 0.0) /
         static_cast<double>(recent_count_);
}

void SimulationSession::sampleFrame() {
  time_plot.push(static_cast<float>(simulation_->time()));
  solve_us_plot.push(static_cast<float>(recentMedianSolveUs()));
  violation_plot.push(static_cast<float>(simulation_->positionViolation()));
  energy_plot.push(static_cast<float>(simulation_->energy().balance()));
  contacts_plot.push(static_cast<float>(simulation_->lastUnilateralStep().contacts));
}

}  // namespace loopsim::app
