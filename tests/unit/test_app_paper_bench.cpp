// `loopsim bench --paper N --quick --out DIR`, through the built binary: every
// paper's page, CSVs and plots are written; the exact solvers in them agree
// with the reference solve; the tables carry the paper's figures and the
// figures their exponents; the output rules (never replacing without
// --overwrite, only regular files) and the refused combinations.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/bench/paper_reproduction.hpp>

#include "app_process.hpp"

namespace {

namespace fs = std::filesystem;
using loopsim::test::pngSize;
using loopsim::test::ProcessResult;
using loopsim::test::readWholeFile;
using loopsim::test::runLoopsimProcess;

fs::path scratchDir(const std::string& name) { return loopsim::test::scratchDir("paper", name); }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

struct CsvRow {
  std::string experiment, case_name, column;
  double x = 0, median_us = 0, ratio = 0, error = -1, paper = 0;
  bool exact = false;
};

std::vector<std::string> splitCsvLine(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == ',' && !quoted) cells.push_back(cell), cell.clear();
    else cell += ch;
  }
  cells.push_back(cell);
  return cells;
}

// The cells of an experiment's CSV; `fits` counts its "# fit" lines.
std::vector<CsvRow> readCsv(const fs::path& path, int& fits) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "paper,experiment,case,column,x,nv,constraint_dim,median_us,ratio,ratio_iqr,reference,iterations,error,"
            "exact,paper_figure")
      << path;
  std::vector<CsvRow> rows;
  fits = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# fit,", 0) == 0) {
      ++fits;
      continue;
    }
    const auto c = splitCsvLine(line);
    if (c.size() != 15) {
      ADD_FAILURE() << path << ": " << line;
      continue;
    }
    rows.push_back({c[1], c[2], c[3], std::stod(c[4]), std::stod(c[7]), std::stod(c[8]), std::stod(c[12]),
                    std::stod(c[14]), c[13] == "1"});
  }
  return rows;
}

}  // namespace

TEST(AppPaperBench, EveryPaperQuickWritesItsPageCsvsAndPlotsAndItsExactSolversAgreeWithTheReference) {
  for (const std::string& paper : loopsim::paperBenchIds()) {
    SCOPED_TRACE("paper " + paper);
    const fs::path dir = scratchDir(paper);
    const ProcessResult r = runLoopsimProcess("bench --paper " + paper + " --quick --out out", dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.err, "bench --paper " + paper)) << "progress is shown:\n" << r.err;
    const std::string page = readWholeFile(dir / "out" / ("paper-" + paper + ".md"));
    EXPECT_TRUE(contains(page, "# Paper " + paper + " reproduced")) << page;
    EXPECT_TRUE(contains(page, "quick run")) << "a quick page says so";
    int exact_compared = 0, paper_figures = 0, fitted = 0;
    for (const std::string& id : loopsim::paperExperimentIds(paper)) {
      SCOPED_TRACE(id);
      const std::string stem = "paper-" + paper + "-" + id;
      EXPECT_TRUE(contains(page, "](" + stem + ".csv)")) << "the page links its data";
      EXPECT_TRUE(contains(page, "](" + stem + ".png)")) << "the page shows its plot";
      std::uint32_t width = 0, height = 0;
      ASSERT_TRUE(pngSize(dir / "out" / (stem + ".png"), width, height));
      EXPECT_GE(width, 600u);
      EXPECT_GE(height, 300u);
      int fits = 0;
      const auto rows = readCsv(dir / "out" / (stem + ".csv"), fits);
      ASSERT_FALSE(rows.empty());
      fitted += fits;
      for (const CsvRow& row : rows) {
        EXPECT_EQ(row.experiment, id);
        if (row.median_us > 0.0) {
          EXPECT_TRUE(std::isfinite(row.ratio) && row.ratio > 0.0) << row.case_name << " " << row.column;
        }
        if (row.paper > 0.0) ++paper_figures;
        if (row.exact && row.error >= 0.0) {
          ++exact_compared;
          // Direct solvers and every Delassus algorithm against the dense
          // reference at round-off; iterative ones solved to ‖J v̇ − k‖∞ ≤ 1e-10,
          // whose v̇ then differs more (lcaba's penalty round-off at mu: auto
          // reaches ~3e-8 on the full run's largest chains of loops).
          const bool iterative = row.column.find(" tol ") != std::string::npos;
          EXPECT_LT(row.error, iterative ? 1e-7 : 1e-8) << row.case_name << " " << row.column;
        }
      }
    }
    EXPECT_GT(exact_compared, 0) << "the agreement check compared nothing";
    if (paper != "002") {
      EXPECT_GT(paper_figures, 0) << "the tables carry the paper's figures";
    }
    EXPECT_GT(fitted, 0) << "the figures carry fitted exponents";
  }
}

TEST(AppPaperBench, OutputsAreNeverReplacedWithoutOverwriteAndOnlyRegularFiles) {
  const fs::path dir = scratchDir("rules");
  ASSERT_EQ(runLoopsimProcess("bench --paper 004 --quick --out out", dir).exit_code, 0);
  const fs::path page = dir / "out" / "paper-004.md";
  const std::string before = readWholeFile(page);

  ProcessResult again = runLoopsimProcess("bench --paper 004 --quick --out out", dir);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.errorLine(), "paper-004.md")) << again.err;
  EXPECT_TRUE(contains(again.errorLine(), "--overwrite")) << again.err;
  EXPECT_FALSE(contains(again.err, "[")) << "refused before measuring anything:\n" << again.err;
  EXPECT_EQ(readWholeFile(page), before);

  again = runLoopsimProcess("bench --paper 004 --quick --out out --overwrite", dir);
  EXPECT_EQ(again.exit_code, 0) << again.err;

  // A directory where a CSV would go is not a regular file: refused even with --overwrite.
  fs::remove(dir / "out" / "paper-004-fig11.csv");
  fs::create_directory(dir / "out" / "paper-004-fig11.csv");
  again = runLoopsimProcess("bench --paper 004 --quick --out out --overwrite", dir);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.errorLine(), "paper-004-fig11.csv")) << again.err;
  EXPECT_TRUE(contains(again.errorLine(), "not a regular file")) << again.err;

  // A link left where the CSV's partial file goes is not followed.
  fs::remove_all(dir / "out" / "paper-004-fig11.csv");
  std::ofstream(dir / "mine.csv") << "mine";
  fs::create_symlink(dir / "mine.csv", dir / "out" / "paper-004-fig11.csv.partial");
  again = runLoopsimProcess("bench --paper 004 --quick --out out --overwrite", dir);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.errorLine(), "paper-004-fig11.csv.partial")) << again.err;
  EXPECT_EQ(readWholeFile(dir / "mine.csv"), "mine");
  fs::remove(dir / "out" / "paper-004-fig11.csv.partial");

  // --out naming a file.
  std::ofstream(dir / "a_file") << "mine";
  again = runLoopsimProcess("bench --paper 004 --quick --out a_file", dir);
  EXPECT_NE(again.exit_code, 0);
  EXPECT_TRUE(contains(again.errorLine(), "not a directory")) << again.err;
  EXPECT_EQ(readWholeFile(dir / "a_file"), "mine");
}

TEST(AppPaperBench, RefusedCombinationsNameTheOption) {
  const fs::path dir = scratchDir("refusals");
  struct Case {
    const char* arguments;
    const char* expected;
  };
  for (const Case& c : {Case{"bench --paper 003", "--paper"}, Case{"bench --paper 000 --solver pv", "--solver"},
                        Case{"bench --paper 000 --samples 3", "--samples"}, Case{"bench --quick", "--quick"},
                        Case{"bench --out x", "--out"}, Case{"bench --paper 000 --overwrite", "--overwrite"},
                        Case{"bench --table2 --quick", "--quick"}}) {
    const ProcessResult r = runLoopsimProcess(c.arguments, dir);
    EXPECT_NE(r.exit_code, 0) << c.arguments;
    EXPECT_TRUE(contains(r.err, c.expected)) << c.arguments << ":\n" << r.err;
    EXPECT_FALSE(fs::exists(dir / "x")) << c.arguments;
  }
}
