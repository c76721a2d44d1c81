// How subcommands plug into the CLI: each add_*_command registers its options
// on the app and, when selected, leaves the action to run in `selected`.
// Parsing and running stay separate so usage errors exit before any work.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace ampbench::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the run worked and found a problem
inline constexpr int kExitUsage = 2;    // bad input: arguments, files, suites

using Action = std::function<int()>;

void add_env_command(CLI::App& app, Action& selected);
void add_list_command(CLI::App& app, Action& selected);
void add_run_command(CLI::App& app, Action& selected);
void add_gate_command(CLI::App& app, Action& selected);
void add_baseline_command(CLI::App& app, Action& selected);
void add_qualify_command(CLI::App& app, Action& selected);

}  // namespace ampbench::cli
