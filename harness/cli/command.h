// How subcommands plug into the CLI: each add_*_command registers its options
// on the app and, when selected, leaves the action to run in `selected`.
// Parsing and running stay separate so usage errors exit before any work.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "session/exit_codes.h"

namespace ampbench::cli {

// Exit codes: session/exit_codes.h.
using ampbench::kExitFailure;
using ampbench::kExitOk;
using ampbench::kExitRendezvous;
using ampbench::kExitUsage;
using ampbench::kExitCodesHelp;

using Action = std::function<int()>;

void add_env_command(CLI::App& app, Action& selected);
void add_list_command(CLI::App& app, Action& selected);
void add_run_command(CLI::App& app, Action& selected);
// What `gate --history` runs: the history's argv after `python -m history`
// (exec_history in the binary; the gate's tests record it instead).
using HistoryRunner = std::function<int(const std::vector<std::string>&)>;
void add_gate_command(CLI::App& app, Action& selected, HistoryRunner run_history);
void add_baseline_command(CLI::App& app, Action& selected);
void add_qualify_command(CLI::App& app, Action& selected);
void add_autocast_ops_command(CLI::App& app, Action& selected);
// upgrade, fleet and history: listed here, run by their script and Python modules.
void add_delegated_commands(CLI::App& app, Action& selected);
// Becomes argv (exec) with the checkout's Python modules importable; returns
// only when it cannot (kExitFailure, reason on stderr), naming `name`.
int exec_command(const char* name, const std::vector<std::string>& argv);
// `python -m history ARGS...` (ampbench gate --history runs its gate).
int exec_history(const std::vector<std::string>& args);

}  // namespace ampbench::cli
