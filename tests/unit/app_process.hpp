#pragma once
// Runs the built `loopsim` binary for the app tests: exit code, stdout and
// stderr kept apart so a test can check the exact first line of an error.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace loopsim::test {

struct ProcessResult {
  int exit_code = -1;
  std::string out, err;
  /// First line of stderr (without the newline).
  std::string firstErrorLine() const { return err.substr(0, err.find('\n')); }
  /// The first stderr line that starts with "loopsim: " (after any log lines, e.g. loader warnings).
  std::string errorLine() const {
    for (std::size_t at = 0; at < err.size();) {
      const std::size_t end = err.find('\n', at);
      const std::string line = err.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (line.rfind("loopsim: ", 0) == 0) return line;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    return "";
  }
};

inline std::string readWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// An empty directory under the temporary directory for one test of a suite
/// ("loopsim_<suite>_test_<pid>_<name>"), emptied if it exists.
inline std::filesystem::path scratchDir(const std::string& suite, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("loopsim_" + suite + "_test_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Runs in the directory `scratch` (where stdout and stderr are captured);
/// `arguments` go through the shell (quote paths with spaces yourself).
inline ProcessResult runLoopsimProcess(const std::string& arguments, const std::filesystem::path& scratch) {
  const auto out_file = scratch / "stdout.txt", err_file = scratch / "stderr.txt";
  // Run inside `scratch`: a file the tool wrote into its working directory would show there.
  const std::string command = "cd " + scratch.string() + " && " + std::string(LOOPSIM_BINARY) + " " + arguments + " >" + out_file.string() + " 2>" +
                              err_file.string() + " </dev/null";
  const int status = std::system(command.c_str());
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readWholeFile(out_file);
  result.err = readWholeFile(err_file);
  std::filesystem::remove(out_file);
  std::filesystem::remove(err_file);
  return result;
}

// Width and height from a PNG's IHDR chunk (bytes 16-23, big-endian); false
// when the file is not a PNG.
inline bool pngSize(const std::filesystem::path& path, std::uint32_t& width, std::uint32_t& height) {
  const std::string bytes = readWholeFile(path);
  if (bytes.size() < 24 || bytes.compare(1, 3, "PNG") != 0) return false;
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(bytes[at + k]);
    return v;
  };
  width = be32(16);
  height = be32(20);
  return true;
}

}  // namespace loopsim::test
