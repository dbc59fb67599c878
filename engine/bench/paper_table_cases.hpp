#pragma once
// `loopsim bench --table2`: paper 000 Table II's cases on our Atlas and Go1,
// built from the robot scenes by keeping subsets of their constraints (same
// model, pose and settings, so the rows differ only in what is constrained):
//   iiwa (0D), (H3), (H)                     scenes/iiwa_tool_weld.yaml's 6D tool
//                                            weld, and its frame origins held as a
//                                            3D point (H3)
//   atlas (0D), (F), (2F), (2F+H), (2F+2H)   scenes/atlas_2f2h.yaml's 6D welds
//                                            (left foot, right foot, left hand, right hand)
//   go1 (0D), (F3), (2F3), (3F3), (4F3)      scenes/go1_standing.yaml's 3D foot
//                                            connects (FR, FL, RR, RL)
// The paper's Talos rows have no model here.
#include <filesystem>
#include <string>
#include <vector>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

/// The cases in the table's order; `scenes_dir` holds iiwa_tool_weld.yaml,
/// atlas_2f2h.yaml and go1_standing.yaml. Throws ModelError naming the file and constraint when a
/// constraint the cases use is missing.
std::vector<Scene> paperTable2Cases(const std::filesystem::path& scenes_dir);

/// The table's columns (ABA, the floor, is always timed): the recursive
/// solvers and the joint-space ones they are compared with.
const std::vector<std::string>& paperTable2Solvers();

}  // namespace loopsim
