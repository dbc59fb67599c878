// Records on the timeline (--play): the rows shown are the recorded ones
// exactly, and two records are two ghosts with their divergence.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gui_test_support.hpp"
#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/scene/scene_loader.hpp>

namespace fs = std::filesystem;
using namespace loopsim::test::gui;

namespace {

struct ShownRecord {
  double t = 0.0;
  std::size_t row = 0;
  std::vector<double> q;
};

// "gui: record K: FILE t = T s, row R of N, q = ..." (numbers at 17 digits: they read back exactly).
bool shownRecord(const std::string& text, int k, ShownRecord& shown) {
  const std::string marker = "gui: record " + std::to_string(k) + ": ";
  const auto at = text.find(marker);
  if (at == std::string::npos) return false;
  const std::string line = text.substr(at, text.find('\n', at) - at);
  const auto t_at = line.find(" t = "), row_at = line.find(", row "), q_at = line.find(", q =");
  if (t_at == std::string::npos || row_at == std::string::npos || q_at == std::string::npos) return false;
  shown.t = std::strtod(line.c_str() + t_at + 5, nullptr);
  shown.row = std::strtoul(line.c_str() + row_at + 6, nullptr, 10);
  std::istringstream in(line.substr(q_at + 5));
  for (double x; in >> x;) shown.q.push_back(x);
  return true;
}

}  // namespace

TEST(Gui, ScrubbingARecordShowsExactlyTheRecordedQAndTwoRecordsOverlayWithTheirDivergence) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  const fs::path kkt = freshPath("timeline_kkt.csv"), soft = freshPath("timeline_soft.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + kkt.string()).exit_code, 0);
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --solver soft-ltl --duration 0.5 --quiet --record " + soft.string()).exit_code, 0);
  const loopsim::CsvTable table = loopsim::readCsv(kkt), soft_table = loopsim::readCsv(soft);

  // Scrubbed (--seek, the slider's action) to a row's time and between two rows: the row at or before t, exactly.
  for (const auto& [seek, expected_row] : std::vector<std::pair<std::string, std::size_t>>{{"0.25", 250}, {"0.3335", 333}, {"9", 500}}) {
    const Output out = runGui("--play " + kkt.string() + " --seek " + seek + " --frames 2 --size 160x120 --msaa 0 --hide-ui");
    ASSERT_EQ(out.exit_code, 0) << out.text;
    ShownRecord shown;
    ASSERT_TRUE(shownRecord(out.text, 1, shown)) << out.text;
    EXPECT_EQ(shown.row, expected_row) << "seek " << seek;
    EXPECT_EQ(shown.t, table.rows[expected_row][static_cast<std::size_t>(table.requireColumn("t"))]);
    const std::vector<double> q = recordedQ(table, expected_row);
    ASSERT_EQ(shown.q.size(), q.size());
    for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(shown.q[i], q[i]) << "seek " << seek << " q " << i << " bit for bit";
  }

  // Playing: 20 frames of 1/60 s from the start; the second record is the ghost, with the divergence of the rows shown.
  const Output out = runGui("--play " + kkt.string() + " --play " + soft.string() + " --frames 20 --size 160x120 --msaa 0 --hide-ui");
  ASSERT_EQ(out.exit_code, 0) << out.text;
  ShownRecord first, second;
  ASSERT_TRUE(shownRecord(out.text, 1, first)) << out.text;
  ASSERT_TRUE(shownRecord(out.text, 2, second)) << out.text;
  EXPECT_EQ(first.row, 333u) << "20 frames of 1/60 s: t = 0.333";
  EXPECT_EQ(second.row, 333u);
  EXPECT_EQ(second.q, recordedQ(soft_table, 333));
  const loopsim::Scene scene = loopsim::loadScene(scenePath("four_bar.yaml"));
  loopsim::VectorX q1 = Eigen::Map<const loopsim::VectorX>(first.q.data(), static_cast<Eigen::Index>(first.q.size()));
  loopsim::VectorX q2 = Eigen::Map<const loopsim::VectorX>(second.q.data(), static_cast<Eigen::Index>(second.q.size()));
  loopsim::VectorX d(scene.model->nv);
  loopsim::difference(*scene.model, q1, q2, d);
  const double shown_divergence = numberAfter(out.text, "gui: records divergence ");
  EXPECT_EQ(shown_divergence, d.norm());
  EXPECT_GT(shown_divergence, 0.0) << "soft-ltl differs from kkt";
  std::printf("[ measured ] four_bar kkt vs soft-ltl records at t = 0.333 s: divergence %.3e\n", shown_divergence);

  // Records of different models do not overlay.
  const fs::path go1 = freshPath("timeline_go1.csv");
  ASSERT_EQ(runLoopsim("run " + scenePath("go1_standing.yaml") + " --duration 0.01 --quiet --record " + go1.string()).exit_code, 0);
  const Output mixed = runGui("--play " + kkt.string() + " --play " + go1.string() + " --frames 1 --size 160x120 --msaa 0 --hide-ui");
  EXPECT_EQ(mixed.exit_code, 1) << mixed.text;
  EXPECT_NE(mixed.text.find("is of another model"), std::string::npos) << mixed.text;
  for (const fs::path& p : {kkt, soft, go1}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}

TEST(Gui, TwoRecordsOnTheTimelineAreTwoGhostsOfDistinctColoursWithALegend) {
  if (!haveXvfb()) GTEST_SKIP() << "xvfb-run not found (Debian package xvfb): GUI tests skipped";
  // A free run and a pushed one (the coupler pulled from 0.05 s): they part visibly by 0.45 s.
  const fs::path free_csv = freshPath("ghost_free.csv"), pushed = freshPath("ghost_pushed.csv"), png = freshPath("ghosts.png");
  ASSERT_EQ(runLoopsim("run " + scenePath("four_bar.yaml") + " --duration 0.5 --quiet --record " + free_csv.string()).exit_code, 0);
  ASSERT_EQ(runGui(scenePath("four_bar.yaml") + " --perturb coupler:0.05:0.5:0.6,0,2.2 --frames 30 --size 160x120 --msaa 0 "
                                                 "--hide-ui --record " + pushed.string()).exit_code,
            0);
  const Output out = runGui("--play " + free_csv.string() + " --play " + pushed.string() +
                            " --seek 0.45 --frames 2 --size 480x300 --msaa 4 --hide-ui --screenshot " + png.string());
  ASSERT_EQ(out.exit_code, 0) << out.text;
  // "gui: record ghost K rgb R G B alpha A box X0 Y0 X1 Y1"
  std::vector<Ghost> ghosts;
  std::istringstream lines(out.text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("gui: record ghost ", 0) != 0) continue;
    std::istringstream in(line.substr(18));
    Ghost g;
    double alpha = 0.0;
    std::string word;
    in >> g.name >> word >> g.rgb[0] >> g.rgb[1] >> g.rgb[2] >> word >> alpha >> word >> g.box[0] >> g.box[1] >> g.box[2] >> g.box[3];
    ASSERT_TRUE(in) << line;
    EXPECT_LT(alpha, 1.0) << "record " << g.name << " is translucent";
    ghosts.push_back(g);
  }
  ASSERT_EQ(ghosts.size(), 2u) << out.text;
  const double hue1 = hueSaturation(ghosts[0].rgb).first, hue2 = hueSaturation(ghosts[1].rgb).first;
  EXPECT_GT(hueDistance(hue1, hue2), 90.0) << "distinct colours";
  const double divergence = numberAfter(out.text, "gui: records divergence ");
  EXPECT_GT(divergence, 1e-2) << "the push moved the second record" << out.text;
  // Both colours are on screen inside the records' boxes (neither ghost hides the other); the
  // bluish ground is less saturated than the ghosts.
  const Image image = readPng(png);
  ASSERT_EQ(image.width, 480);
  std::array<long, 2> counts{0, 0}, outside{0, 0};
  const std::array<int, 4> box{std::min(ghosts[0].box[0], ghosts[1].box[0]), std::min(ghosts[0].box[1], ghosts[1].box[1]),
                               std::max(ghosts[0].box[2], ghosts[1].box[2]), std::max(ghosts[0].box[3], ghosts[1].box[3])};
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      const auto [hue, saturation] = hueSaturation(image.at(x, y));
      if (saturation < 0.55) continue;
      const bool inside = x >= box[0] && x < box[2] && y >= box[1] && y < box[3];
      auto& tally = inside ? counts : outside;
      if (hueDistance(hue, hue1) < 25.0) ++tally[0];
      if (hueDistance(hue, hue2) < 25.0) ++tally[1];
    }
  }
  std::printf("[ measured ] record ghosts at t = 0.45 s: divergence %.3e, pixels of colour 1 / 2: %ld / %ld in the boxes, "
              "%ld / %ld outside\n", divergence, counts[0], counts[1], outside[0], outside[1]);
  EXPECT_GT(counts[0], 100) << png;
  EXPECT_GT(counts[1], 100) << png;
  EXPECT_GT(counts[0], 5 * outside[0]) << "colour 1 is the ghost's, not the background's: " << png;
  fs::remove(png);
  for (const fs::path& p : {free_csv, pushed}) {
    fs::remove(p);
    fs::remove(fs::path(p).replace_extension(".json"));
  }
}
