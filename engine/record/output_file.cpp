#include <loopsim/record/output_file.hpp>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <charconv>
#include <csignal>
#include <system_error>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace fs = std::filesystem;

std::string fileKindName(const fs::file_status& status) {
  switch (status.type()) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::symlink: return "a symbolic link";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::fifo: return "a FIFO (named pipe)";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

void requireReplaceableOutput(const fs::path& path, bool overwrite, const std::vector<fs::path>& inputs) {
  std::error_code ec;
  // Inputs first: an output spelled differently from an input (a symlink, a
  // "./" prefix, a hard link) is still that input.
  for (const fs::path& input : inputs) {
    if (input.empty()) continue;
    if (fs::exists(path, ec) && fs::exists(input, ec) && fs::equivalent(path, input, ec)) {
      throw ModelError(path.string(), "", "is the input file " + input.string() +
                                              "; refusing to write an output over an input");
    }
  }
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return;
  if (status.type() == fs::file_type::symlink) {
    const fs::path target = fs::read_symlink(path, ec);
    throw ModelError(path.string(), "", "is a symbolic link (to " + target.string() +
                                            "); loopsim replaces only regular files: give the target or another name");
  }
  if (status.type() != fs::file_type::regular) {
    throw ModelError(path.string(), "", "is " + fileKindName(status) +
                                            "; loopsim writes records and outputs only to regular files");
  }
  if (!overwrite) throw ModelError(path.string(), "", "file exists; refusing to overwrite it (use --overwrite)");
}

fs::path partialPathFor(const fs::path& final_path, long pid) {
  fs::path out = final_path;
  out += ".partial-" + std::to_string(pid);
  return out;
}

namespace {
// A process is gone when signalling it fails with ESRCH (EPERM: it exists,
// owned by someone else).
bool processIsRunning(long pid) {
  if (pid <= 0 || pid > 0x7fffffffL) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}
}  // namespace

std::vector<fs::path> stalePartialsOf(const fs::path& final_path) {
  std::vector<fs::path> out;
  const fs::path dir = final_path.has_parent_path() ? final_path.parent_path() : fs::path(".");
  const std::string prefix = final_path.filename().string() + ".partial-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    long pid = 0;
    const char* first = name.data() + prefix.size();
    const char* last = name.data() + name.size();
    const auto [ptr, err] = std::from_chars(first, last, pid);
    if (err != std::errc() || ptr != last) continue;
    if (!processIsRunning(pid)) out.push_back(it->path());
  }
  return out;
}

void warnAboutStalePartials(const fs::path& final_path) {
  for (const fs::path& stale : stalePartialsOf(final_path)) {
    std::error_code ec;
    const auto bytes = fs::file_size(stale, ec);
    spdlog::warn("stale partial file {} ({} bytes) left by an interrupted run that is no longer running; "
                 "remove it with: rm '{}'",
                 stale.string(), ec ? 0 : bytes, stale.string());
  }
}

}  // namespace loopsim
