#include <loopsim/bench/paper_table_cases.hpp>

#include <algorithm>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace loopsim {

namespace {

// `full` with only the named constraints (and their soft weights), renamed.
Scene withConstraints(const Scene& full, const std::string& name, const std::vector<std::string>& kept) {
  Scene scene = full;
  scene.name = name;
  scene.constraints.clear();
  scene.solver_settings.soft_weights.clear();
  for (const std::string& wanted : kept) {
    const auto it = std::find_if(full.constraints.begin(), full.constraints.end(),
                                 [&](const Constraint& c) { return c.name == wanted; });
    if (it == full.constraints.end()) {
      throw ModelError(full.source_file, "constraints", "bench --table2 needs a constraint named '" + wanted + "'");
    }
    scene.constraints.push_back(*it);
    if (!full.solver_settings.soft_weights.empty()) {
      scene.solver_settings.soft_weights.push_back(
          full.solver_settings.soft_weights[static_cast<std::size_t>(it - full.constraints.begin())]);
    }
  }
  return scene;
}

// `full` with its weld `weld` held as a point only (a 3D connect of the weld's
// frame origins: the paper's H3), renamed.
Scene withPointOf(const Scene& full, const std::string& name, const std::string& weld) {
  Scene scene = withConstraints(full, name, {weld});
  scene.constraints.front().kind = ConstraintKind::Connect;
  scene.constraints.front().name = weld + "_point";
  return scene;
}

}  // namespace

std::vector<Scene> paperTable2Cases(const std::filesystem::path& scenes_dir) {
  const Scene go1 = loadScene(scenes_dir / "go1_standing.yaml");
  const Scene atlas = loadScene(scenes_dir / "atlas_2f2h.yaml");
  const Scene iiwa = loadScene(scenes_dir / "iiwa_tool_weld.yaml");
  return {
      withConstraints(iiwa, "iiwa (0D)", {}),
      withPointOf(iiwa, "iiwa (H3)", "tool_weld"),
      withConstraints(iiwa, "iiwa (H)", {"tool_weld"}),
      withConstraints(go1, "go1 (0D)", {}),
      withConstraints(go1, "go1 (F3)", {"FL_contact"}),
      withConstraints(go1, "go1 (2F3)", {"FL_contact", "RR_contact"}),
      withConstraints(go1, "go1 (3F3)", {"FL_contact", "RR_contact", "RL_contact"}),
      withConstraints(go1, "go1 (4F3)", {"FR_contact", "FL_contact", "RR_contact", "RL_contact"}),
      withConstraints(atlas, "atlas (0D)", {}),
      withConstraints(atlas, "atlas (F)", {"left_foot_weld"}),
      withConstraints(atlas, "atlas (2F)", {"left_foot_weld", "right_foot_weld"}),
      withConstraints(atlas, "atlas (2F+H)", {"left_foot_weld", "right_foot_weld", "left_hand_weld"}),
      withConstraints(atlas, "atlas (2F+2H)",
                      {"left_foot_weld", "right_foot_weld", "left_hand_weld", "right_hand_weld"}),
  };
}

const std::vector<std::string>& paperTable2Solvers() {
  static const std::vector<std::string> names = {"pv",  "pv-early", "pv-soft",  "constrained-aba", "prox-pv",
                                                 "ltl", "prox-ltl", "soft-ltl", "kkt"};
  return names;
}

}  // namespace loopsim
