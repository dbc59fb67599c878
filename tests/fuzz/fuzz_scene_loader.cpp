// libFuzzer target: the scene loader on arbitrary YAML (generators only: the
// base directory has no model files, so urdf:/mjcf: entries fail cleanly).
#include <cstddef>
#include <cstdint>
#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)loopsim::loadSceneString(text, "fuzz.yaml", "/nonexistent");
  } catch (const loopsim::ModelError&) {
  }
  return 0;
}
