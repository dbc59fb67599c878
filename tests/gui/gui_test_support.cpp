#include "gui_test_support.hpp"

#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <loopsim/scene/scene_loader.hpp>

namespace loopsim::test::gui {

namespace fs = std::filesystem;

Output shell(const std::string& command) { return loopsim::test::runCommand(command); }

bool haveXvfb() { return shell("command -v xvfb-run").exit_code == 0; }

bool haveXdotool() { return shell("command -v xdotool").exit_code == 0; }

// Sanitizer build: the GL driver (Mesa's llvmpipe, dlopened through libGL and
// unloaded by glfwTerminate) leaves leaks whose frames lie in unloaded modules,
// which no LeakSanitizer suppression can name. Leak checking is off for the
// processes in the virtual X server only; ASan and UBSan stay on there, and
// every other loopsim process of the suites keeps it.
#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kInXvfbEnvironment = "ASAN_OPTIONS=\"${ASAN_OPTIONS}:detect_leaks=0\" ";
#else
constexpr const char* kInXvfbEnvironment = "";
#endif

Output inXvfb(const std::string& command) {
  Output out = shell(std::string(kInXvfbEnvironment) + "xvfb-run -a -s '-screen 0 1024x768x24' sh -c '" + command +
                     "; echo \"exit code: $?\"'");
  const auto at = out.text.rfind("exit code: ");
  out.exit_code = at == std::string::npos ? -1 : std::atoi(out.text.c_str() + at + 11);
  return out;
}

Output runGui(const std::string& arguments) { return inXvfb(std::string(LOOPSIM_BINARY) + " gui " + arguments); }

Output runLoopsim(const std::string& arguments) { return shell(std::string(LOOPSIM_BINARY) + " " + arguments); }

std::string scenePath(const std::string& name) {
  return (fs::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / name).string();
}

fs::path freshPath(const std::string& name) {
  const fs::path path = fs::temp_directory_path() / ("loopsim_gui_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove(path);
  // A record's sidecar too: one left by an earlier run whose process had the
  // same id would make the record refuse to overwrite it.
  if (path.extension() == ".csv") fs::remove(fs::path(path).replace_extension(".json"));
  return path;
}

Image readPng(const fs::path& path) {
  Image image;
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (png_image_begin_read_from_file(&png, path.c_str()) == 0) return image;
  png.format = PNG_FORMAT_RGB;
  image.rgb.resize(PNG_IMAGE_SIZE(png));
  if (png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr) == 0) return {};
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  return image;
}

bool hasModelColour(const std::array<int, 3>& p, const std::vector<std::array<double, 3>>& colours) {
  const double px = p[0], py = p[1], pz = p[2];
  const double brightness = std::max(20.0, std::sqrt(px * px + py * py + pz * pz));
  for (const auto& c : colours) {
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    if (cc < 1e-6) continue;
    const double k = (px * c[0] + py * c[1] + pz * c[2]) / cc;
    if (k < 0.3 * 255 || k > 1.6 * 255) continue;
    const double rx = px - k * c[0], ry = py - k * c[1], rz = pz - k * c[2];
    if (std::sqrt(rx * rx + ry * ry + rz * rz) < 0.06 * brightness) return true;
  }
  return false;
}

std::vector<std::array<double, 3>> visualColours(const std::string& scene_file) {
  const loopsim::Scene scene = loopsim::loadScene(scenePath(scene_file));
  std::vector<std::array<double, 3>> colours;
  for (const loopsim::VisualGeometry& v : scene.model->visuals) colours.push_back({v.rgba[0], v.rgba[1], v.rgba[2]});
  return colours;
}

std::pair<double, double> hueSaturation(const std::array<int, 3>& p) {
  const double r = p[0] / 255.0, g = p[1] / 255.0, b = p[2] / 255.0;
  const double hi = std::max({r, g, b}), lo = std::min({r, g, b}), span = hi - lo;
  if (hi <= 0.0 || span <= 0.0) return {0.0, 0.0};
  double hue = 0.0;
  if (hi == r) hue = 60.0 * std::fmod((g - b) / span + 6.0, 6.0);
  else if (hi == g) hue = 60.0 * ((b - r) / span + 2.0);
  else hue = 60.0 * ((r - g) / span + 4.0);
  return {hue, span / hi};
}

double hueDistance(double a, double b) {
  const double d = std::abs(a - b);
  return std::min(d, 360.0 - d);
}

std::vector<Ghost> ghostsOf(const std::string& text) {
  std::vector<Ghost> ghosts;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("gui: ghost ", 0) != 0) continue;
    std::istringstream in(line.substr(11));
    Ghost g;
    int index = 0;
    double alpha = 0.0;
    std::string word;
    in >> index >> g.name >> g.role >> word >> g.rgb[0] >> g.rgb[1] >> g.rgb[2] >> word >> alpha >> word >> g.box[0] >>
        g.box[1] >> g.box[2] >> g.box[3] >> word >> g.divergence;
    if (in) ghosts.push_back(g);
  }
  return ghosts;
}

std::vector<ScreenRect> panelsOf(const std::string& text) {
  std::vector<ScreenRect> panels;
  const std::string marker = "gui: panel '";
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::size_t name_end = text.find("' at ", at);
    ScreenRect r;
    r.name = text.substr(at + marker.size(), name_end - at - marker.size());
    std::string rest = text.substr(name_end + 5, text.find('\n', name_end) - name_end - 5);
    std::replace(rest.begin(), rest.end(), ',', ' ');
    std::string word;
    std::istringstream(rest) >> r.x0 >> r.y0 >> r.x1 >> r.y1 >> word >> r.content >> word >> r.inner;
    panels.push_back(r);
  }
  return panels;
}

ScreenRect rectAfter(const std::string& text, const std::string& marker, const std::string& name) {
  ScreenRect r{name};
  const std::size_t at = text.find(marker);
  if (at != std::string::npos) std::istringstream(text.substr(at + marker.size())) >> r.x0 >> r.y0 >> r.x1 >> r.y1;
  return r;
}

void expectPanelsClear(const std::vector<ScreenRect>& panels, const std::vector<ScreenRect>& models, const std::string& text) {
  for (std::size_t i = 0; i < panels.size(); ++i) {
    // Nothing in a panel runs off its edge (wrapped, shortened, or on a line of its own).
    EXPECT_GT(panels[i].inner, 0.0) << panels[i].name << "\n" << text;
    EXPECT_LE(panels[i].content, panels[i].inner + 1.0) << panels[i].name << " is clipped\n" << text;
    for (std::size_t j = 0; j < i; ++j) EXPECT_FALSE(panels[i].overlaps(panels[j])) << panels[i].name << " / " << panels[j].name << "\n" << text;
    for (const ScreenRect& m : models) {
      EXPECT_GT(m.x1, m.x0) << m.name << "\n" << text;
      EXPECT_FALSE(panels[i].overlaps(m)) << panels[i].name << " covers " << m.name << "\n" << text;
    }
  }
}

double numberAfter(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  return at == std::string::npos ? std::nan("") : std::atof(text.c_str() + at + marker.size());
}

std::vector<double> recordedQ(const loopsim::CsvTable& table, std::size_t row) {
  std::vector<double> q;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].rfind("q:", 0) == 0) q.push_back(table.rows[row][c]);
  }
  return q;
}

Output guiWithKeys(const std::string& scene, const std::string& keys, const std::string& extra) {
  const fs::path script = freshPath("history_keys.sh");
  std::ofstream(script) << std::string(LOOPSIM_BINARY) + " gui " + scenePath(scene) +
                               " --frames 100000000 --size 160x120 --msaa 0 --hide-ui " + extra + " &\n"
                               "gui=$!\n"
                               "xdotool search --sync --name loopsim > /dev/null\n"
                               "sleep 0.3\n"
                               "xdotool key --delay 200 " + keys + " ctrl+q\n"
                               "wait $gui\n";
  Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  return out;
}

Output guiClicking(const std::string& arguments, const std::string& actions) {
  const fs::path script = freshPath("clicks.sh"), log = freshPath("clicks.log");
  std::ofstream(script) << "log=" + log.string() + "\n" + R"SH(
# (Ctrl+Q does nothing while a text field takes the keys: the GUI is killed after 3 s.)
fail() { echo "timed out waiting for $1"; xdotool key ctrl+q; (sleep 3; kill $gui 2>/dev/null) & wait $gui; cat $log; exit 1; }
waitfor() { i=0; while [ "$(grep -cF -- "$1" $log)" -lt "${2:-1}" ]; do sleep 0.05; i=$((i+1)); [ $i -gt 1200 ] && fail "$1"; done; }
widget() { grep -F "widget: '$1' " $log | tail -n 1 | sed "s/.*widget: '[^']*' //"; }
lines() { grep -cF "widget: " $log; }
# panel LABEL DY BUTTON: scroll (button 4 up, 5 down) over the control panel DY pixels below its title bar,
# or click its title bar (DY < 0, button 1); then wait until some widget moved (a new widget line), or 3 s when
# nothing did.
panel() {
  dy=$2; button=$3
  set -- $(widget loopsim)
  n=$(lines)
  xdotool mousemove --window $window $(( ($2 + $4) / 2 )) $(( $5 + dy )) click $button
  i=0; while [ "$(lines)" -le $n ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done
}
# shown LABEL: wait until LABEL is shown and enabled (scrolling or raising its panel); its line in $w.
shown() {
  i=0
  while :; do
    w=$(widget "$1")
    case "$w" in
      "at "*" disabled") sleep 0.05 ;;
      "at "*) break ;;
      "hidden (scrolled out below)") panel "$1" 60 5 ;;
      "hidden (scrolled out above)") panel "$1" 60 4 ;;
      "hidden (under a window)") panel "$1" -10 1 ;;
      *) sleep 0.05 ;;
    esac
    i=$((i+1)); [ $i -gt 1200 ] && fail "widget $1 ($w)"
  done
}
# active LABEL yes|no: wait until LABEL's last line says it is (not) active.
active() {
  i=0
  while :; do
    case "$(widget "$1")" in *" active") [ "$2" = yes ] && break ;; *) [ "$2" = no ] && break ;; esac
    sleep 0.05; i=$((i+1)); [ $i -gt 100 ] && fail "widget $1 active: $2"
  done
}
click() {
  shown "$1"
  set -- $w
  xdotool mousemove --window $window $(( ($2 + $4) / 2 )) $(( ($3 + $5) / 2 )) click 1
}
# x and y of P % of LABEL's width at mid-height (LABEL shown), in $x $y.
at_percent() { shown "$1"; p=$2; set -- $w; x=$(( $2 + ($4 - $2) * p / 100 )); y=$(( ($3 + $5) / 2 )); }
press() { at_percent "$1" $2; xdotool mousemove --window $window $x $y mousedown 1; active "$1" yes; }
moveto() { at_percent "$1" $2; xdotool mousemove --window $window $x $y; }
release() { xdotool mouseup 1; active "$1" no; }
focus() { click "$1"; active "$1" yes; }
step() { click 'Step (Right)'; waitfor 'event: step to' "$1"; }
typein() { focus "$1"; xdotool type "$2"; xdotool keydown Return; active "$1" no; xdotool keyup Return; }
)SH" + std::string(LOOPSIM_BINARY) + " gui " + arguments +
                               " --log-events --log-widgets --size 1024x768 --msaa 0 > $log 2>&1 &\n"
                               "gui=$!\n"
                               "window=$(xdotool search --sync --name loopsim | head -n 1)\n" +
                               actions +
                               "\nxdotool key ctrl+q\n"
                               "wait $gui\n"
                               "status=$?\n"
                               "cat $log\n"
                               "exit $status\n";
  Output out = inXvfb("timeout 120 sh " + script.string());
  fs::remove(script);
  fs::remove(log);
  return out;
}

}  // namespace loopsim::test::gui
