#pragma once
// Where loopsim may write: the guard every record and output goes through.
// Only a regular file the user allowed to be replaced (overwrite) or a path
// that does not exist yet is ever written; a device, FIFO, socket, directory
// or symbolic link is refused, and so is an output that is one of the
// command's own inputs (scene, model, states), however it is spelled.
#include <filesystem>
#include <string>
#include <vector>

namespace loopsim {

/// Throws ModelError naming `path` unless it may be written (see above).
/// `inputs` are the files the command reads; missing ones are ignored.
void requireReplaceableOutput(const std::filesystem::path& path, bool overwrite,
                              const std::vector<std::filesystem::path>& inputs = {});

/// "a directory", "a FIFO", "a character device", ... for a non-regular file.
std::string fileKindName(const std::filesystem::file_status& status);

/// The temporary name a writer uses for `final_path` while it writes:
/// "<final>.partial-<pid>".
std::filesystem::path partialPathFor(const std::filesystem::path& final_path, long pid);

/// Partial files of `final_path` left by writers that are no longer running
/// (interrupted by SIGKILL, a crash or a power cut).
std::vector<std::filesystem::path> stalePartialsOf(const std::filesystem::path& final_path);

/// Logs one warning per stale partial of `final_path`, with the command that removes it.
void warnAboutStalePartials(const std::filesystem::path& final_path);

}  // namespace loopsim
