#pragma once
// Runs a shell command, collecting stdout and stderr together with its exit
// code: how the app-level tests drive the loopsim binary.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace loopsim::test {

struct CommandOutput {
  std::string text;  // stdout and stderr
  int exit_code = -1;
};

inline CommandOutput runCommand(const std::string& command) {
  CommandOutput out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out.text += buffer.data();
  const int status = pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

}  // namespace loopsim::test
