#pragma once
// A whole text file as a string, for the tests and tools that hand files to
// MuJoCo; a file that cannot be read throws.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace loopsim::test {

inline std::string readTextFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace loopsim::test
