#pragma once
// What kind of file the user gave: `info` and `check` take URDF, MJCF and
// scenes alike, and `run` simulates a model file as a one-model scene.
#include <filesystem>
#include <string>

#include <loopsim/model/model.hpp>

namespace loopsim::app {

enum class InputKind { Urdf, Mjcf, Scene };

/// By extension (.urdf, .yaml/.yml; .xml: by its root element, <robot> or
/// <mujoco>). Throws ModelError naming the file when it is missing, not a
/// regular file, or of an unknown kind.
InputKind inputKindOf(const std::filesystem::path& file);

/// The model of any input: a URDF (with `floating` / `strict`), an MJCF, or a
/// scene's assembled forest. `floating` and `strict` apply to URDF only.
Model loadAnyModel(const std::filesystem::path& file, bool floating = false, bool strict = false);

}  // namespace loopsim::app
