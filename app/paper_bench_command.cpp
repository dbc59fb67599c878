#include "paper_bench_command.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include <loopsim/bench/paper_report.hpp>
#include <loopsim/model/errors.hpp>

#include "paper_plots.hpp"
#include "render/screenshot.hpp"

namespace loopsim::app {

namespace fs = std::filesystem;

namespace {

std::string machineDescription() {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  return fmt::format("{} ({} hardware threads; one used)", model, std::thread::hardware_concurrency());
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

std::string pagePrefix(const std::string& paper) { return "paper-" + paper; }
std::string csvName(const PaperExperiment& e) { return pagePrefix(e.paper) + "-" + e.id + ".csv"; }
std::string plotName(const PaperExperiment& e) { return pagePrefix(e.paper) + "-" + e.id + ".png"; }

// A file of the output may be replaced only when it is a regular file and
// --overwrite was given; checked for every file before anything is measured.
void checkReplaceable(const fs::path& path, bool overwrite) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_regular_file(status)) {
    throw ModelError(path.string(), "--out", "exists and is not a regular file; not replaced");
  }
  if (!overwrite) {
    throw ModelError(path.string(), "--out", "exists (from an earlier run?); give --overwrite to replace it");
  }
}

// Where a file is written before it is renamed over its target (a reader
// never sees half a file): a regular leftover of an interrupted run is
// removed; anything else there is refused, never followed or replaced.
fs::path partialOf(const fs::path& path) {
  const fs::path partial = path.string() + ".partial";
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(partial, ec);
  if (fs::is_regular_file(status)) fs::remove(partial);
  else if (fs::exists(status)) throw ModelError(partial.string(), "--out", "exists and is not a regular file; not replaced");
  return partial;
}

void writeText(const fs::path& path, const std::string& text) {
  const fs::path partial = partialOf(path);
  std::FILE* file = std::fopen(partial.c_str(), "wbx");  // exclusive: never through a link created meanwhile
  if (file == nullptr) throw ModelError(partial.string(), "--out", "cannot create");
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size();
  if (std::fclose(file) != 0 || !written) {
    fs::remove(partial);
    throw ModelError(partial.string(), "--out", "cannot write");
  }
  fs::rename(partial, path);
}

void writePlot(const fs::path& path, const render::RgbImage& image) {
  const fs::path partial = partialOf(path);
  render::writePngExclusive(partial, image);  // exclusive create, as writeText
  fs::rename(partial, path);
}

}  // namespace

int runPaperBench(const PaperBenchRequest& request, const fs::path& scenes_dir) {
  const fs::path dir = request.out;
  if (!request.out.empty()) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
      throw ModelError(dir.string(), "--out", "exists and is not a directory");
    }
    checkReplaceable(dir / (pagePrefix(request.paper) + ".md"), request.overwrite);
    for (const std::string& id : paperExperimentIds(request.paper)) {
      PaperExperiment named;
      named.paper = request.paper;
      named.id = id;
      checkReplaceable(dir / csvName(named), request.overwrite);
      checkReplaceable(dir / plotName(named), request.overwrite);
    }
  }
  PaperBenchOptions options;
  options.quick = request.quick;
  const auto start = std::chrono::steady_clock::now();
  options.progress = [&](const std::string& what) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "bench --paper %s [%4.0f s] %s\n", request.paper.c_str(), seconds, what.c_str());
  };
  const std::vector<PaperExperiment> experiments = runPaperBench(request.paper, scenes_dir, options);
  PaperPageInfo info;
  info.machine = machineDescription();
  info.date = today();
  info.quick = request.quick;
  info.command = fmt::format("loopsim bench --paper {}{} --out DIR", request.paper, request.quick ? " --quick" : "");
  if (request.out.empty()) {
    std::fputs(paperPageMarkdown(request.paper, experiments, info).c_str(), stdout);
    return 0;
  }
  info.csv_name = &csvName;
  info.plot_name = &plotName;
  fs::create_directories(dir);
  // Checked again as each is written: a file may have appeared while the experiments ran.
  for (const PaperExperiment& e : experiments) {
    checkReplaceable(dir / csvName(e), request.overwrite);
    writeText(dir / csvName(e), paperExperimentCsv(e));
    checkReplaceable(dir / plotName(e), request.overwrite);
    writePlot(dir / plotName(e), plotPaperExperiment(e));
  }
  const fs::path page = dir / (pagePrefix(request.paper) + ".md");
  checkReplaceable(page, request.overwrite);
  writeText(page, paperPageMarkdown(request.paper, experiments, info));
  std::fprintf(stderr, "bench --paper %s: wrote %s and %zu CSV files and plots beside it\n", request.paper.c_str(),
               page.c_str(), experiments.size());
  return 0;
}

}  // namespace loopsim::app
