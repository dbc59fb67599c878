// `loopsim gui [SCENE] [--solver NAME] [--switch-solver T:NAME ...] [--frames N]
// [--screenshot OUT.png] [--size WxH] [--msaa N] [--camera AZ,EL,DIST] [--hide-ui]
// [--record OUT.csv [--overwrite]]`: the desktop simulator (app/gui/).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "gui/gui_app.hpp"
#include "gui_commands.hpp"
#include "list_values.hpp"
#include <loopsim/contact/unilateral_step.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/run_length.hpp>
#include <loopsim/sim/solver_comparison.hpp>
#include "render/window.hpp"
#include <loopsim/solvers/registry.hpp>

namespace loopsim::app {

namespace {

struct GuiArguments {
  GuiOptions options;
  std::vector<std::string> switches;
  std::string size = "1280x720";
  std::string camera;
  std::vector<std::string> show;
  std::optional<long> frames;
  std::vector<std::string> compare;
  std::vector<std::string> tick_compare;
  std::string compare_layout = "overlay";
  std::string compare_ghosts = "outlines";
  std::vector<std::string> set_joints;
  std::vector<std::string> set_controls;
  std::vector<std::string> stabilization_changes;
  std::string perturb;
  std::string perturb_buttons = "mujoco";
  bool no_ground = false;
};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

double number(const std::string& text, const std::string& option, const std::string& whole) {
  try {
    std::size_t used = 0;
    const double x = std::stod(text, &used);
    if (used == text.size() && std::isfinite(x)) return x;
  } catch (const std::exception&) {
  }
  throw ModelError("", option, "'" + whole + "' is not valid: '" + text + "' is not a number");
}

// JOINT=VALUE items (--set-joint, --set-control), each checked; `example` goes in the message.
std::vector<std::pair<std::string, double>> jointValues(const std::vector<std::string>& given, const char* option,
                                                        const char* example) {
  std::vector<std::pair<std::string, double>> values;
  for (const std::string& item : splitListValues(given)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw ModelError("", option, "'" + item + "' is not JOINT=VALUE (e.g. " + example + ")");
    }
    values.emplace_back(item.substr(0, eq), number(item.substr(eq + 1), option, item));
  }
  return values;
}

GuiOptions checkedOptions(GuiArguments& a, const std::string& command_line) {
  GuiOptions o = a.options;
  o.command_line = command_line;
  o.model_file.ground = !a.no_ground;
  o.left_drag_pulls = a.perturb_buttons == "left-pulls";
  for (const std::string& entry : a.switches) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos || colon + 1 == entry.size()) {
      throw ModelError("", "--switch-solver", "'" + entry + "' is not T:NAME (e.g. 0.5:ltl)");
    }
    const double t = number(entry.substr(0, colon), "--switch-solver", entry);
    if (t < 0.0) throw ModelError("", "--switch-solver", "'" + entry + "': the time must be >= 0");
    const std::string name = entry.substr(colon + 1);
    ContactSolverKind contact;
    if (name != "auto" && findSolver(name) == nullptr && !parseContactSolver(name, contact)) {  // auto: probed at the switch's state
      throw ModelError("", "--switch-solver", "'" + entry + "': " + unknownSolverMessage(name));
    }
    o.solver_switches.emplace_back(t, name);
  }
  std::stable_sort(o.solver_switches.begin(), o.solver_switches.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });

  const std::vector<std::string> size = split(a.size, 'x');
  if (size.size() != 2) throw ModelError("", "--size", "'" + a.size + "' is not WxH (e.g. 1280x720)");
  const double w = number(size[0], "--size", a.size), h = number(size[1], "--size", a.size);
  if (w < 64 || h < 64 || w > 8192 || h > 8192 || w != std::floor(w) || h != std::floor(h)) {
    throw ModelError("", "--size", "'" + a.size + "': width and height must be whole numbers from 64 to 8192");
  }
  o.width = static_cast<int>(w);
  o.height = static_cast<int>(h);

  if (o.msaa < 0 || o.msaa > 16) throw ModelError("", "--msaa", std::to_string(o.msaa) + " samples: use 0 (off) to 16");
  if (!a.camera.empty()) {
    const std::vector<std::string> parts = split(a.camera, ',');
    if (parts.size() != 3) throw ModelError("", "--camera", "'" + a.camera + "' is not AZIMUTH,ELEVATION,DISTANCE (degrees, degrees, m)");
    o.camera = std::array<double, 3>{number(parts[0], "--camera", a.camera), number(parts[1], "--camera", a.camera),
                                     number(parts[2], "--camera", a.camera)};
    if (!((*o.camera)[2] > 0.0)) throw ModelError("", "--camera", "'" + a.camera + "': the distance must be > 0");
  }
  for (const std::string& item : a.show) {
    if (item == "frames") o.toggles.body_frames = true;
    else if (item == "com") o.toggles.centers_of_mass = true;
    else if (item == "constraints") o.toggles.constraint_frames = true;
    else if (item == "forces") o.toggles.constraint_forces = true;
    else if (item == "contacts") o.toggles.contacts = true;
    else if (item == "cones") o.toggles.friction_cones = true;
    else if (item == "collision") o.toggles.collision = CollisionDisplay::over_visuals;
    else if (item == "collision-only") o.toggles.collision = CollisionDisplay::instead_of_visuals;
    else if (item == "transparent") o.toggles.transparent = true;
    else if (item == "wireframe") o.toggles.wireframe = true;
    else if (item == "help") o.show_help = true;
    else throw ModelError("", "--show", "unknown item '" + item + "' (frames, com, constraints, forces, contacts, cones, collision, collision-only, transparent, wireframe, help)");
  }
  o.compare = splitListValues(a.compare);
  o.tick_compare = splitListValues(a.tick_compare);
  for (const auto& [option, list] : {std::pair{"--compare", &o.compare}, std::pair{"--tick-compare", &o.tick_compare}}) {
    for (const std::string& name : *list) {
      // SOLVER or SOLVER+CONTACT (SolverComparison's names).
      const ComparedRunName run = parseComparedRunName(name);
      if (findSolver(run.solver) == nullptr) throw ModelError("", option, unknownSolverMessage(run.solver));
      if (!run.contact_text.empty() && !run.contact) {
        throw ModelError("", option, "'" + name + "': '" + run.contact_text + "' is not a contact solver (admm, pgs)");
      }
    }
    if (!list->empty() && (list->size() < 2 || list->size() > 6)) {
      throw ModelError("", option, "compare 2 to 6 solvers (got " + std::to_string(list->size()) + ")");
    }
  }
  if (!o.compare.empty() && !o.tick_compare.empty()) {
    throw ModelError("", "--tick-compare", "ticks solvers without starting them; --compare starts them: give one of the two");
  }
  if (!o.compare_reference.empty() && o.compare.empty()) throw ModelError("", "--reference", "applies to --compare, which is not given");
  if (a.compare_layout != "overlay" && a.compare_layout != "side-by-side") {
    throw ModelError("", "--compare-layout", "'" + a.compare_layout + "': use overlay or side-by-side");
  }
  o.compare_side_by_side = a.compare_layout == "side-by-side";
  o.compare_ghost_outlines = a.compare_ghosts == "outlines";
  for (const std::string& item : splitListValues(a.stabilization_changes)) {
    const std::vector<std::string> parts = split(item, ':');
    if (parts.size() != 3 || (parts[2] != "on" && parts[2] != "off")) {
      throw ModelError("", "--set-stabilization", "'" + item + "' is not TIME:T:on|off (e.g. 0.2:0.05:on)");
    }
    const double time = number(parts[0], "--set-stabilization", item);
    if (time < 0.0) throw ModelError("", "--set-stabilization", "'" + item + "': the time must be >= 0");
    o.stabilization_changes.push_back({time, number(parts[1], "--set-stabilization", item), parts[2] == "on"});
  }
  std::stable_sort(o.stabilization_changes.begin(), o.stabilization_changes.end(),
                   [](const auto& x, const auto& y) { return x.time < y.time; });
  o.set_joints = jointValues(a.set_joints, "--set-joint", "crank_joint=0.5");
  o.set_controls = jointValues(a.set_controls, "--set-control", "FR_calf_joint=-1.2");
  if (!o.set_controls.empty() && !o.record.empty()) {
    throw ModelError("", "--set-control", "a record replays the scene's controller, which --set-control changes: not with --record");
  }
  if (!o.set_joints.empty() && !o.record.empty()) {
    throw ModelError("", "--set-joint", "a record replays from the scene's start, which --set-joint changes: not with --record");
  }
  if (o.compare_from && o.compare.empty()) throw ModelError("", "--compare-from", "applies to --compare, which is not given");
  if (o.compare_from && !(std::isfinite(*o.compare_from) && *o.compare_from >= 0.0)) {
    throw ModelError("", "--compare-from", "must be a time >= 0 s (got " + std::to_string(*o.compare_from) + ")");
  }
  if (!a.perturb.empty()) {
    // BODY:T0:T1:X,Y,Z
    const std::vector<std::string> parts = split(a.perturb, ':');
    const std::vector<std::string> xyz = parts.size() == 4 ? split(parts[3], ',') : std::vector<std::string>{};
    if (parts.size() != 4 || xyz.size() != 3 || parts[0].empty()) {
      throw ModelError("", "--perturb", "'" + a.perturb + "' is not BODY:T0:T1:X,Y,Z (e.g. coupler:0.1:0.3:0.5,0,1.6)");
    }
    o.perturb_body = parts[0];
    o.perturb_t0 = number(parts[1], "--perturb", a.perturb);
    o.perturb_t1 = number(parts[2], "--perturb", a.perturb);
    for (std::size_t k = 0; k < 3; ++k) o.perturb_target[k] = number(xyz[k], "--perturb", a.perturb);
    if (o.perturb_t0 < 0.0 || o.perturb_t1 <= o.perturb_t0) {
      throw ModelError("", "--perturb", "'" + a.perturb + "': the times must satisfy 0 <= T0 < T1");
    }
  }
  if (o.play.size() > 2) throw ModelError("", "--play", "one record, or two to overlay (got " + std::to_string(o.play.size()) + ")");
  if (!o.play.empty() && (!o.record.empty() || !o.compare.empty())) {
    throw ModelError("", "--play", "shows records instead of a simulation: not with " + std::string(o.record.empty() ? "--compare" : "--record"));
  }
  if (!o.compare.empty() && !o.record.empty()) {
    throw ModelError("", "--record", "records the simulation, which waits while --compare runs: not with --compare");
  }
  if (o.seek && o.play.empty()) throw ModelError("", "--seek", "applies to --play, which is not given");
  if (o.seek && !std::isfinite(*o.seek)) throw ModelError("", "--seek", "must be a finite time");
  if (!(o.history_seconds > 0.0) || !std::isfinite(o.history_seconds)) {
    throw ModelError("", "--history", "must be > 0 seconds (got " + std::to_string(o.history_seconds) + ")");
  }
  if (a.frames && *a.frames < 1) throw ModelError("", "--frames", std::to_string(*a.frames) + ": must be >= 1");
  // As a run's step count (a value past 64 bits arrives here held at the largest long).
  if (a.frames && static_cast<double>(*a.frames) > kMaxRunSteps) {
    throw ModelError("", "--frames", std::to_string(*a.frames) + ": at most 1e9 frames");
  }
  o.frames = a.frames;
  if (!o.screenshot.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(o.screenshot, ec))) {
      throw ModelError(o.screenshot, "--screenshot", "exists; not overwritten (choose another name)");
    }
    if (!o.frames) o.frames = 1;  // a screenshot run renders and exits
  }
  if (o.wall_clock && !o.frames) {
    throw ModelError("", "--wall-clock", "applies to --frames, which is not given (a window always follows the wall clock)");
  }
  return o;
}

// The command line as recorded in a --record summary.
std::string commandLine(const GuiArguments& a) {
  std::ostringstream os;
  os << "loopsim gui " << a.options.scene;
  if (!a.options.solver.empty()) os << " --solver " << a.options.solver;
  if (a.options.model_file.floating_base) os << " --floating";
  if (a.no_ground) os << " --no-ground";
  for (const std::string& s : a.switches) os << " --switch-solver " << s;
  if (a.frames) os << " --frames " << *a.frames;
  if (!a.compare.empty()) {
    os << " --compare ";
    for (std::size_t k = 0; k < a.compare.size(); ++k) os << (k ? "," : "") << a.compare[k];
  }
  if (a.options.compare_from) os << " --compare-from " << *a.options.compare_from;
  for (const std::string& s : a.stabilization_changes) os << " --set-stabilization " << s;
  if (!a.perturb.empty()) os << " --perturb " << a.perturb;
  if (!a.options.record.empty()) os << " --record " << a.options.record;
  if (a.options.overwrite) os << " --overwrite";
  return os.str();
}

}  // namespace

std::vector<std::string> defaultJobArguments(const std::string& program) {
  const std::string scene =
      (std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / "digit_standing.yaml").string();
  if (render::displayAvailable()) return {program, "gui", scene};
  std::fprintf(stderr, "loopsim: no display, so no window: running the default scene headless (loopsim run %s)\n",
               scene.c_str());
  return {program, "run", scene};
}

Command registerGuiCommand(CLI::App& parent) {
  auto a = std::make_shared<GuiArguments>();
  CLI::App* gui = parent.add_subcommand("gui", "Open the desktop simulator (3D view, solver switching, panels and plots)");
  gui->footer(
      "With --frames N (or --screenshot) it renders N frames, each advancing exactly 1/60 s of simulated time, "
      "prints the measured FPS and exits. Exit codes: 0 done; 1 invalid options, a scene that failed to load or a "
      "solver switch that was refused in a --frames run, or a screenshot that could not be written; 2 no display (use xvfb-run, or `loopsim run`); 3 the "
      "simulation diverged in a --frames run (it pauses there, as in the window), or with --compare a compared solver "
      "stopped (the others go on).");
  gui->add_option("scene", a->options.scene, "Scene (.yaml), URDF or MJCF file to open");
  gui->add_option("--solver", a->options.solver, "Start with this solver (see `loopsim solvers`), or auto");
  gui->add_option("--switch-solver", a->switches, "T:NAME switches to solver NAME (or auto: a timing probe at that state; admm or pgs: the contact solver) at simulated time T (repeatable)");
  gui->add_option("--frames", a->frames, "Render N frames (1/60 s of simulated time each), print the FPS, exit");
  gui->add_flag("--wall-clock", a->options.wall_clock,
                "With --frames: physics follows the wall clock (whole steps of the scene's dt, as in a window) "
                "instead of 1/60 s per frame, to measure the real-time factor");
  gui->add_option("--screenshot", a->options.screenshot, "Write the last frame to this PNG (never overwritten)");
  gui->add_option("--size", a->size, "Window size WxH")->capture_default_str();
  gui->add_option("--msaa", a->options.msaa, "Multisample anti-aliasing samples (0 = off)")->capture_default_str();
  gui->add_option("--camera", a->camera, "AZIMUTH,ELEVATION,DISTANCE of the view (degrees, degrees, m)");
  gui->add_option("--show", a->show, "Turn on: frames, com, constraints, forces, contacts, cones (friction cones), collision (collision geometry over the visuals), collision-only (instead of them), transparent, wireframe, help")
      ->delimiter(',');
  gui->add_flag("--hide-ui", a->options.hide_ui, "Start with the panels hidden (Tab shows them)");
  gui->add_option("--perturb-buttons", a->perturb_buttons,
                  "Mouse perturbation: mujoco (Ctrl+drag turns the selected body, Ctrl+right-drag pulls it, as "
                  "MuJoCo's simulate) or left-pulls (the other way round)")
      ->check(CLI::IsMember({"mujoco", "left-pulls"}))
      ->capture_default_str();
  gui->add_flag("--floating", a->options.model_file.floating_base, "A URDF model file: give its root link a free joint");
  gui->add_flag("--no-ground", a->no_ground,
                "A floating-base model file: no ground plane under it (by default one is put 5 mm under its feet)");
  gui->add_flag("--paused", a->options.paused, "Start paused (Space runs)");
  gui->add_option("--compare", a->compare,
                  "Compare 2 to 6 solvers from the start, in lockstep: the reference solid, the others as "
                  "translucent ghosts, a table and a divergence plot (also in the panel 'Compare solvers')");
  gui->add_option("--tick-compare", a->tick_compare,
                  "Tick 2 to 6 solvers in the panel 'Compare solvers' without starting them (key C, or the "
                  "panel's buttons, starts them)");
  gui->add_option("--reference", a->options.compare_reference,
                  "The solver --compare measures divergence from (default kkt, else the first exact one)");
  gui->add_option("--set-stabilization", a->stabilization_changes,
                  "TIME:T:on|off sets the Baumgarte time constant T (s; <= 0: none) and the projection from that "
                  "simulated time on, as the Settings panel's 'Apply on next step' (recorded; repeatable)");
  gui->add_option("--set-joint", a->set_joints,
                  "JOINT=VALUE sets a 1-dof joint's position before the first step, as its slider in the Joints panel "
                  "(the other joints re-projected to keep the loops closed; repeatable)");
  gui->add_option("--set-control", a->set_controls,
                  "JOINT=VALUE moves an actuated joint's PD target (pd_hold or sinusoid controller) before the first "
                  "step, as its slider in the Controls panel: the joint is driven there (repeatable)");
  gui->add_option("--compare-from", a->options.compare_from,
                  "Run the simulation to this time (s) first, then start --compare from its state there (the "
                  "panel's 'Compare from here', key C)");
  gui->add_option("--compare-layout", a->compare_layout, "overlay (ghosts on top of each other) or side-by-side")
      ->capture_default_str();
  gui->add_option("--compare-ghosts", a->compare_ghosts,
                  "outlines (the compared runs as coloured outlines over the solid reference: where they agree, "
                  "the outlines lie on it) or translucent")
      ->check(CLI::IsMember({"outlines", "translucent"}))
      ->capture_default_str();
  gui->add_option("--perturb", a->perturb,
                  "BODY:T0:T1:X,Y,Z pulls BODY's origin toward the world point X,Y,Z from T0 to T1 (simulated s) "
                  "with the spring-damper of a Ctrl+drag (scripted runs)");
  gui->add_option("--play", a->options.play,
                  "Open a record (run/gui --record CSV, its JSON beside it) on the timeline; give two to overlay the "
                  "second as a ghost with their divergence");
  gui->add_option("--seek", a->options.seek, "Start the timeline paused at this time (s)");
  gui->add_option("--history", a->options.history_seconds,
                  "Seconds of past states kept for stepping back (Left), scrubbing and resuming")
      ->capture_default_str();
  gui->add_option("--record", a->options.record, "Write a CSV record of every step, as `loopsim run --record`");
  gui->add_flag("--overwrite", a->options.overwrite, "Allow --record to replace an existing record");
  gui->add_flag("--log-events", a->options.log_events,
                "Print one 'event: ...' line per action on the simulation (run, pause, step, reset, solver, "
                "history, comparison, open, screenshot) from the keyboard, the panels or a drop, with its outcome "
                "(e.g. 'event: solver ltl from t = 0.25 s (step 250)')");
  gui->add_flag("--log-widgets", a->options.log_widgets,
                "Print where the panels' buttons are ('widget: LABEL at X0 Y0 X1 Y1' in window pixels, or hidden / "
                "gone) whenever that changes, for scripts that click them (the GUI tests use xdotool)");
  return {gui, [a] { return runGui(checkedOptions(*a, commandLine(*a))); }};
}

}  // namespace loopsim::app
