// The ampbench CLI: parses arguments and hands over to one subcommand.
#include <exception>
#include <iostream>

#include "cli/command.h"
#include "distributed/stop_signals.h"

namespace {

// Every command's --help ends with the exit codes (a delegated command's
// --help is its implementation's, which states its own).
void end_help_with_exit_codes(CLI::App& app) {
  if (app.get_footer().empty()) app.footer(ampbench::kExitCodesHelp);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) end_help_with_exit_codes(*sub);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ampbench::cli;
  // A launched rank ties its life to the launcher's first thing: a launcher
  // killed while ranks start must not leave them running (stop_signals.h).
  ampbench::distributed::die_with_launcher();
  CLI::App app{"ampbench: mixed-precision training benchmark and conformance suite", "ampbench"};
  app.require_subcommand(1);
  Action selected;
  add_env_command(app, selected);
  add_list_command(app, selected);
  add_run_command(app, selected);
  add_gate_command(app, selected, exec_history);
  add_baseline_command(app, selected);
  add_qualify_command(app, selected);
  add_autocast_ops_command(app, selected);
  add_delegated_commands(app, selected);
  end_help_with_exit_codes(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp& e) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    // Usage errors go to stderr with the usage of the command that failed.
    // CLI11 calls a stray word "extra"; name it as the unknown subcommand it is.
    if (app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-') {
      std::cerr << "ampbench: error: unknown subcommand '" << argv[1] << "'\n\n";
    } else {
      std::cerr << "ampbench: error: " << e.what() << "\n\n";
    }
    const CLI::App* failing = &app;
    for (const CLI::App* sub : app.get_subcommands()) failing = sub;
    std::cerr << failing->help();
    return kExitUsage;
  }

  try {
    return selected ? selected() : kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "ampbench: error: " << e.what() << "\n";
    return kExitFailure;
  }
}
