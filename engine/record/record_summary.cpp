#include <loopsim/record/record_summary.hpp>

#include <sys/utsname.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include <loopsim/version.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_writer.hpp>
#include <loopsim/record/file_hash.hpp>
#include <loopsim/record/output_file.hpp>
#include <loopsim/record/recorder.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

namespace {

nlohmann::json platform() {
  nlohmann::json out;
  utsname u{};
  if (uname(&u) == 0) {
    out["system"] = u.sysname;
    out["release"] = u.release;
    out["machine"] = u.machine;
  }
  out["compiler"] = __VERSION__;
  return out;
}

nlohmann::json settingsJson(const SolverSettings& s) {
  return {{"mu", s.muValue()},
          {"tolerance", s.tolerance},
          {"max_iterations", s.max_iterations},
          {"warm_start", s.warm_start},
          {"soft_weight", s.soft_weight}};
}

nlohmann::json summaryJson(const RunSummary& s) {
  return {{"steps", s.steps},
          {"simulated_time", s.simulated_time},
          {"wall_time", s.wall_time},
          {"steps_per_second", s.steps_per_second},
          {"realtime_factor", s.realtime_factor},
          {"median_step_us", s.median_step_us},
          {"median_solve_us", s.median_solve_us},
          {"mean_iterations", s.mean_iterations},
          {"unconverged_solves", s.unconverged_solves},
          {"max_position_violation", s.max_position_violation},
          {"rms_position_violation", s.rms_position_violation},
          {"max_velocity_violation", s.max_velocity_violation},
          {"rms_velocity_violation", s.rms_velocity_violation},
          {"energy_balance", s.energy.balance()},
          {"applied_work", s.energy.applied_work},
          {"damping_work", s.energy.damping_work}};
}

nlohmann::json limitsJson(const Model& model, const LimitExcursions& limits) {
  nlohmann::json position = nlohmann::json::array();
  for (const PositionRangeExcursion& e : limits.position) {
    position.push_back({{"joint", model.joint_names[e.joint]},
                        {"first_time", e.first_time},
                        {"max_excess", e.max_excess},
                        {"lower", e.lower},
                        {"upper", e.upper}});
  }
  nlohmann::json velocity = nlohmann::json::array();
  for (const VelocityLimitExcursion& e : limits.velocity) {
    velocity.push_back({{"joint", model.joint_names[e.joint]},
                        {"dof", e.dof - model.idx_v[e.joint]},  // within the joint
                        {"first_time", e.first_time},
                        {"max_excess", e.max_excess},
                        {"limit", e.limit}});
  }
  return {{"simulated", false}, {"position_ranges", position}, {"velocity_limits", velocity}};
}

}  // namespace

void writeRecordSummary(const std::filesystem::path& path, const Simulation& sim, const std::filesystem::path& csv_path,
                        const std::string& command_line, bool overwrite, const RecordLayout& layout,
                        const LimitExcursions* limits) {
  requireReplaceableOutput(path, overwrite, sceneInputFiles(sim.scene()));
  const Scene& scene = sim.scene();
  nlohmann::json j;
  j["format"] = "loopsim-record-2";
  j["loopsim_version"] = kVersion;
  j["platform"] = platform();
  j["command_line"] = command_line;
  j["csv"] = std::filesystem::absolute(csv_path).string();
  j["scene"] = {{"name", scene.name},
                {"source_file", scene.source_file.empty() ? "" : std::filesystem::absolute(scene.source_file).string()},
                {"text", scene.text}};
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : scene.model_files) files.push_back({{"path", f}, {"sha256", sha256File(f)}});
  j["model_files"] = files;
  j["solver"] = {{"name", scene.solver}, {"settings", settingsJson(scene.solver_settings)}};
  // What `auto` resolved to, for the reader; replay uses the name and μ above
  // (never probing or estimating again), so it rebuilds exactly this solver.
  const SolverBinding& binding = sim.solverBinding();
  j["solver"]["requested"] = binding.requested;
  if (binding.auto_mu) {
    j["solver"]["mu_auto"] = {{"lambda_max", binding.auto_mu->lambda_max}, {"power_sweeps", binding.auto_mu->sweeps}};
  }
  if (binding.selection) j["solver"]["auto"] = {{"probe", binding.selection->summary()}, {"reason", binding.selection->reason}};
  j["dt"] = scene.dt;
  j["duration"] = scene.duration;
  // At the first step: a later change (the GUI's live panel) is in the list, replayed at its step.
  j["time_constant"] = layout.time_constant;
  j["projection"] = layout.projection;
  nlohmann::json changes = nlohmann::json::array();
  for (const StabilizationChange& c : layout.stabilization_changes) {
    changes.push_back({{"step", c.step}, {"time_constant", c.time_constant}, {"projection", c.projection}});
  }
  j["stabilization_changes"] = changes;
  j["record"] = {{"every", layout.every}, {"column_groups", layout.groups}, {"rows", layout.rows}};
  j["summary"] = summaryJson(sim.summary());
  if (limits != nullptr) j["limits"] = limitsJson(sim.model(), *limits);
  if (sim.divergence()) {
    j["divergence"] = nlohmann::json{{"time", sim.divergence()->time}, {"message", sim.divergence()->message()}};
  } else if (!layout.stopped_by.empty()) {
    j["divergence"] = nlohmann::json{{"time", sim.time()}, {"message", layout.stopped_by}};
  } else {
    j["divergence"] = nullptr;
  }
  // Same write-then-rename discipline as the CSV.
  const std::filesystem::path temp = partialPathFor(path, ::getpid());
  std::FILE* out = std::fopen(temp.c_str(), "wx");  // x: never open something already there
  if (out == nullptr) throw ModelError(temp.string(), "", std::string("cannot open for writing: ") + std::strerror(errno));
  const std::string text = j.dump(2) + '\n';
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw ModelError(temp.string(), "", "write failed (disk full?)");
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) throw ModelError(path.string(), "", "cannot rename the finished summary: " + ec.message());
}

RecordSummary readRecordSummary(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw ModelError(path.string(), "", "cannot open record summary");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(path.string(), "", std::string("not valid JSON: ") + e.what());
  }
  RecordSummary s;
  s.file = path.string();
  try {
    if (j.at("format") != "loopsim-record-2") {
      throw ModelError(s.file, "format", "unknown record format " + j.at("format").dump() +
                                             " (this loopsim reads loopsim-record-2; re-record with it)");
    }
    s.scene_text = j.at("scene").at("text").get<std::string>();
    s.scene_source = j.at("scene").at("source_file").get<std::string>();
    for (const auto& f : j.at("model_files")) s.model_files.push_back({f.at("path"), f.at("sha256")});
    s.solver = j.at("solver").at("name").get<std::string>();
    const auto& st = j.at("solver").at("settings");
    s.solver_settings.mu = st.at("mu").get<double>();  // the resolved μ: replay never re-resolves it
    s.solver_settings.tolerance = st.at("tolerance");
    s.solver_settings.max_iterations = st.at("max_iterations");
    s.solver_settings.warm_start = st.at("warm_start");
    s.solver_settings.soft_weight = st.at("soft_weight");
    s.dt = j.at("dt");
    s.duration = j.at("duration");
    s.time_constant = j.at("time_constant");
    s.projection = j.at("projection");
    s.steps = j.at("summary").at("steps");
    s.csv = j.at("csv").get<std::string>();
    s.layout.every = j.at("record").at("every");
    s.layout.groups = j.at("record").at("column_groups").get<std::vector<std::string>>();
    s.layout.rows = j.at("record").at("rows");
    s.layout.time_constant = s.time_constant;
    s.layout.projection = s.projection;
    if (j.contains("stabilization_changes")) {  // absent from records made before live changes
      for (const auto& c : j.at("stabilization_changes")) {
        s.layout.stabilization_changes.push_back({c.at("step"), c.at("time_constant"), c.at("projection")});
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(s.file, "", std::string("incomplete record summary: ") + e.what());
  }
  return s;
}

Scene recordedScene(const RecordSummary& summary) {
  const std::filesystem::path base_dir =
      summary.scene_source.empty() ? std::filesystem::path{} : std::filesystem::path(summary.scene_source).parent_path();
  Scene scene = loadSceneString(summary.scene_text, summary.scene_source.empty() ? summary.file : summary.scene_source,
                                base_dir);
  scene.source_file = summary.scene_source;
  scene.solver = summary.solver;
  // Scene keys, not in the summary.
  const std::vector<int> independent = scene.solver_settings.independent_dofs;
  const std::vector<int> independent_internal = scene.solver_settings.independent_dofs_internal_loops;
  scene.solver_settings = summary.solver_settings;
  scene.solver_settings.independent_dofs = independent;
  scene.solver_settings.independent_dofs_internal_loops = independent_internal;
  scene.dt = summary.dt;
  scene.duration = summary.duration;
  scene.time_constant = summary.time_constant;
  scene.projection = summary.projection;
  return scene;
}

}  // namespace loopsim
