// loopsim command-line entry point: builds the CLI, runs the chosen command
// and is the one place where errors are caught and printed.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <new>
#include <vector>

#include "cli_errors.hpp"
#include "command.hpp"
#include "gui_commands.hpp"
#include "delassus_command.hpp"
#include "info_command.hpp"
#include "record_commands.hpp"
#include "sim_commands.hpp"
#include <loopsim/version.hpp>
#include <loopsim/model/errors.hpp>

namespace {

// Logs go to stderr so that command output on stdout stays machine-readable.
void configureLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("loopsim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(level));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"loopsim: multibody simulation of robots with closed kinematic loops", "loopsim"};
  cli.set_version_flag("--version", std::string("loopsim ") + loopsim::kVersion);
  std::string log_level = "info";
  cli.add_option("--log-level", log_level, "Log verbosity (stderr)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  cli.footer(
      "Exit codes: 0 ok; 1 usage error or invalid input; 2 no display; 3 the simulation diverged; 4 replay --verify "
      "found a difference; 130/143 run interrupted by SIGINT/SIGTERM.");
  cli.require_subcommand(1);
  cli.fallthrough();  // global options are accepted after the subcommand too

  const std::vector<loopsim::app::Command> commands = {
      loopsim::app::registerInfoCommand(cli),
      loopsim::app::registerRunCommand(cli), loopsim::app::registerSolversCommand(cli), loopsim::app::registerCheckCommand(cli),
      loopsim::app::registerCompareCommand(cli),
      loopsim::app::registerReplayCommand(cli),
      loopsim::app::registerEvalCommand(cli),
      loopsim::app::registerBenchCommand(cli),
      loopsim::app::registerGuiCommand(cli),
      loopsim::app::registerDelassusCommand(cli),
  };

  // Plain `loopsim`: the main job (the GUI on the default scene, or a headless run without a display).
  std::vector<std::string> arguments(argv, argv + argc);
  if (argc == 1) arguments = loopsim::app::defaultJobArguments(arguments[0]);
  std::vector<const char*> argument_pointers;
  for (const std::string& a : arguments) argument_pointers.push_back(a.c_str());

  try {
    cli.parse(static_cast<int>(argument_pointers.size()), argument_pointers.data());
  } catch (const CLI::ParseError& e) {
    return loopsim::app::reportParseError(cli, e, argc, argv);
  }
  configureLogging(log_level);

  const char* running = "loopsim";
  try {
    for (const auto& command : commands) {
      if (!command.subcommand->parsed()) continue;
      running = command.subcommand->get_name().c_str();
      return command.run();
    }
  } catch (const std::bad_alloc&) {
    // A generator's size or a model too large for this machine: say so, not "std::bad_alloc".
    std::fprintf(stderr,
                 "loopsim: error: out of memory in `%s`: the scene or model is too large for this machine's memory "
                 "(dense terms grow with the square of the dofs; reduce the generator's size, see scenes/README.md)\n",
                 running);
    return 1;
  } catch (const loopsim::ModelError& e) {
    std::fprintf(stderr, "loopsim: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loopsim: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
