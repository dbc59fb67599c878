#pragma once
// How a subcommand plugs into the CLI: main() calls registerXCommand(app) for
// each command, parses, then runs the one action whose subcommand was given.
// Actions run after parsing (and after logging is configured), so their
// exceptions reach main's single error handler.
#include <functional>

namespace CLI {
class App;
}

namespace loopsim::app {

struct Command {
  CLI::App* subcommand = nullptr;
  std::function<int()> run;  // returns the process exit code
};

}  // namespace loopsim::app
