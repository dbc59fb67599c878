// `loopsim solvers`: the solver registry with descriptions and capabilities.
#include <iostream>
#include <memory>

#include "sim_commands.hpp"
#include <loopsim/contact/unilateral_step.hpp>
#include <loopsim/solvers/registry.hpp>
#include "text_table.hpp"

namespace loopsim::app {

namespace {

const char* yesNo(bool b) { return b ? "yes" : "no"; }

// The contact solvers are not constrained forward-dynamics solvers: they solve the
// velocity-level problem of a step's contacts and limits (docs/contact.md).
void printContactSolvers() {
  std::cout << "\nContact solvers (scene key `contact: {solver: NAME}`; the step's contacts and joint limits, "
               "docs/contact.md)\n";
  for (const ContactSolverKind kind : kContactSolverKinds) {
    std::cout << "  " << contactSolverName(kind) << "\n      " << contactSolverDescription(kind) << "\n";
  }
}

}  // namespace

Command registerSolversCommand(CLI::App& parent) {
  auto verbose = std::make_shared<bool>(false);
  CLI::App* sub = parent.add_subcommand("solvers", "List the constrained forward-dynamics solvers and what they support");
  sub->add_flag("--table", *verbose, "One column per capability instead of a summary line");
  return {sub, [verbose] {
            const auto& registry = solverRegistry();
            std::cout << registry.size() << " solver" << (registry.size() == 1 ? "" : "s")
                      << " (use the name with `run --solver` or `solver:` in a scene)\n\n";
            if (*verbose) {
              TextTable table({"name", "world", "loops", "couplings", "redundant", "soft", "iterative"});
              for (const SolverInfo& s : registry) {
                const SolverCapabilities& c = s.capabilities;
                table.addRow({s.name, yesNo(c.world_constraints), yesNo(c.internal_loops), yesNo(c.couplings),
                              yesNo(c.redundant), yesNo(c.soft), yesNo(c.iterative)});
              }
              table.print(std::cout);
              printContactSolvers();
              return 0;
            }
            for (const SolverInfo& s : registry) {
              std::cout << "  " << s.name << "\n      " << s.description << "\n      supports: "
                        << describeCapabilities(s.capabilities) << "\n";
            }
            std::cout << "\n  auto\n      not a solver: a timing probe at the simulation's start picks the fastest exact "
                         "solver that takes the scene (docs/solvers.md, \"Solver `auto`\"); records store the pick\n";
            printContactSolvers();
            return 0;
          }};
}

}  // namespace loopsim::app
