#pragma once
// A model file (URDF or MJCF) simulated on its own: the one-model scene that
// `loopsim run MODEL` and `loopsim gui MODEL` build, with a floating-base model
// on a ground plane at z = 0 (the GUI's floor), lifted or lowered so that its
// lowest collision geometry starts just above it: it lands on the floor instead
// of falling forever (as a user of MuJoCo's simulate expects of a free body).
#include <filesystem>
#include <optional>
#include <string>

#include <loopsim/scene/scene.hpp>

namespace loopsim {

struct ModelSceneOptions {
  bool floating_base = false;  // URDF only: a free root joint instead of the fixed one
  bool ground = true;          // a ground plane under a floating-base model
};

/// The model's lowest collision geometry starts this far above the ground.
inline constexpr double kGroundGap = 0.005;

struct ModelScene {
  Scene scene;
  std::string text;                     // the scene file that gives the same scene
  std::optional<double> lift;           // when a ground was put: how far the model was moved up (m)
  std::string ground_note;              // why none was, when the model floats and none was put
};

enum class ModelFormat { urdf, mjcf };

/// Throws ModelError naming the file when it cannot be loaded, and naming the
/// option when floating_base is asked of an MJCF (its joints say it).
ModelScene loadModelScene(const std::filesystem::path& model_file, ModelFormat format,
                          const ModelSceneOptions& options = {});

}  // namespace loopsim
