#pragma once
#include <filesystem>
#include <string>

namespace loopsim {

/// Lower-case hex SHA-256 of a file's bytes (records identify model files by it).
std::string sha256File(const std::filesystem::path& path);
/// SHA-256 of a string.
std::string sha256String(const std::string& bytes);

}  // namespace loopsim
