// Commands implemented outside this binary, listed and reachable here so that
// `ampbench --help` names every command a user can run: `upgrade` is a shell
// script (it provisions and builds two torch releases, which a binary linked
// to one of them cannot do), `fleet` a Python report over many machines'
// results, `history` the Python history of runs (a database, change points, a
// site). Everything after the command's name, --help included, goes to the
// implementation unchanged; this process becomes it (exec), so its exit
// status and signals are the command's own.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "core/build_info.h"
#include "session/child_process.h"

namespace ampbench::cli {

namespace {

struct Delegate {
  const char* name;
  const char* description;
  // The implementation's argv before the user's arguments.
  std::vector<std::string> (*command)();
};

std::vector<std::string> upgrade_command() { return {std::string(build_info::source_dir()) + "/ci/upgrade.sh"}; }

std::vector<std::string> fleet_command() { return {python_interpreter(), "-m", "reports.fleet"}; }

std::vector<std::string> history_command() { return {python_interpreter(), "-m", "history"}; }

int exec_delegate(const Delegate& d, const std::vector<std::string>& user_args) {
  std::vector<std::string> argv = d.command();
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return exec_command(d.name, argv);
}

}  // namespace

int exec_command(const char* name, const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The Python modules live in the checkout this binary was built from.
  const std::string source = build_info::source_dir();
  const char* path = std::getenv("PYTHONPATH");
  ::setenv("PYTHONPATH", (path && *path ? source + ":" + path : source).c_str(), 1);
  std::cout << std::flush;
  execvp(args[0], args.data());
  std::cerr << "ampbench: error: " << name << ": cannot run " << argv[0] << ": " << std::strerror(errno) << "\n";
  return kExitFailure;
}

int exec_history(const std::vector<std::string>& args) {
  std::vector<std::string> argv = history_command();
  argv.insert(argv.end(), args.begin(), args.end());
  return exec_command("history", argv);
}

namespace {

void add_delegate(CLI::App& app, Action& selected, const Delegate& d) {
  CLI::App* sub = app.add_subcommand(d.name, d.description);
  // Every argument, --help included, is the implementation's to read.
  sub->prefix_command();
  sub->set_help_flag();
  sub->callback([sub, d, &selected] {
    selected = [args = sub->remaining(), d] { return exec_delegate(d, args); };
  });
}

}  // namespace

void add_delegated_commands(CLI::App& app, Action& selected) {
  add_delegate(app, selected,
               {"upgrade",
                "Gate a torch upgrade: run a suite on two torch releases side by side, one verdict "
                "(ci/upgrade.sh; --help for its flags and exit codes)",
                upgrade_command});
  add_delegate(app, selected,
               {"fleet",
                "Qualify a fleet: group machines' results, flag silent-data-corruption suspects and slow "
                "machines (python -m reports.fleet; --help for its flags and exit codes)",
                fleet_command});
  add_delegate(app, selected,
               {"history",
                "Results over time: ingest runs into a database (SQLite or PostgreSQL), list change points, gate "
                "against history, publish a static site (python -m history; --help for its flags and exit codes)",
                history_command});
}

}  // namespace ampbench::cli
