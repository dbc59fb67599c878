#pragma once
// `loopsim bench --paper N [--quick] [--out DIR] [--overwrite]`: runs one
// paper's experiments (engine/bench/paper_*.cpp) and writes its page, a CSV
// and a plot per table or figure into DIR, or prints the page without DIR.
#include <filesystem>
#include <string>

namespace loopsim::app {

struct PaperBenchRequest {
  std::string paper;  // "000", "001", "002", "004"
  bool quick = false;
  std::string out;         // empty: the page on stdout, nothing written
  bool overwrite = false;  // replace regular files of an earlier run in `out`
};

int runPaperBench(const PaperBenchRequest& request, const std::filesystem::path& scenes_dir);

}  // namespace loopsim::app
