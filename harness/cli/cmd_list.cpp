#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"

namespace ampbench::cli {

void add_list_command(CLI::App& app, Action& selected) {
  auto suite = std::make_shared<std::string>("smoke");
  CLI::App* sub = app.add_subcommand("list", "List the cases a suite expands to");
  sub->add_option("--suite", *suite, "Suite name (suites/NAME.json) or path");
  sub->callback([suite, &selected] {
    selected = [suite] {
      std::cerr << "ampbench list: suites are not implemented yet\n";
      return kExitFailure;
    };
  });
}

void add_run_command(CLI::App& app, Action& selected) {
  auto suite = std::make_shared<std::string>("smoke");
  CLI::App* sub = app.add_subcommand("run", "Run a suite and write results JSON");
  sub->add_option("--suite", *suite, "Suite name (suites/NAME.json) or path");
  sub->callback([suite, &selected] {
    selected = [suite] {
      std::cerr << "ampbench run: the workload matrix is not implemented yet\n";
      return kExitFailure;
    };
  });
}

}  // namespace ampbench::cli
