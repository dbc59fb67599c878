#include "cli_errors.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "exit_codes.hpp"
#include <loopsim/model/name_suggestion.hpp>

namespace loopsim::app {

namespace {

// The first word that is neither an option nor an option's value: what the
// user meant as the command. Global options taking a value are skipped with it.
std::string firstCommandWord(const CLI::App& cli, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty()) continue;
    if (word[0] == '-') {
      const CLI::Option* option = cli.get_option_no_throw(word.substr(0, word.find('=')));
      if (option != nullptr && option->get_type_size() > 0 && word.find('=') == std::string::npos) ++i;
      continue;
    }
    return word;
  }
  return "";
}

}  // namespace

int reportParseError(const CLI::App& cli, const CLI::ParseError& e, int argc, char** argv) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
    return const_cast<CLI::App&>(cli).exit(e);  // --help, --version
  }
  std::vector<std::string> commands;
  for (const CLI::App* sub : cli.get_subcommands({})) commands.push_back(sub->get_name());
  std::string list;
  for (const auto& c : commands) list += (list.empty() ? "" : ", ") + c;

  const std::string word = firstCommandWord(cli, argc, argv);
  const bool known = std::find(commands.begin(), commands.end(), word) != commands.end();
  if (!known) {
    if (word.empty()) {
      std::fprintf(stderr, "loopsim: error: no command given; commands: %s (loopsim --help)\n", list.c_str());
    } else {
      std::fprintf(stderr, "loopsim: error: unknown command '%s'%s; commands: %s (loopsim --help)\n", word.c_str(),
                   didYouMean(word, commands).c_str(), list.c_str());
    }
    return kExitInputError;
  }
  std::fprintf(stderr, "loopsim: error: %s: %s\nRun with --help for more information.\n", word.c_str(), e.what());
  return kExitInputError;
}

}  // namespace loopsim::app
