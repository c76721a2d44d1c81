// The gate and baseline commands through the real CLI11 bindings
// (cli/cmd_gate.cpp), as main.cpp parses and runs them, for gate_tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/command.h"

namespace ampbench::gate::test {

// What a command printed and its exit status: the action's, -1 where CLI11
// refused the command line (main.cpp exits 2 there), -2 where no action was
// selected.
struct Outcome {
  int code;
  std::string out;
  std::string err;
};

// Exit status only; what the command prints goes to the caller's streams.
// `gate --history` hands its argv to `run_history`; by default a test that
// does not expect it fails.
inline int cli_status(const std::vector<std::string>& args, cli::HistoryRunner run_history = nullptr) {
  if (!run_history) {
    run_history = [](const std::vector<std::string>&) {
      ADD_FAILURE() << "gate --history ran the history's gate unexpectedly";
      return -3;
    };
  }
  CLI::App app{"ampbench", "ampbench"};
  app.require_subcommand(1);
  cli::Action selected;
  cli::add_gate_command(app, selected, run_history);
  cli::add_baseline_command(app, selected);
  std::vector<const char*> argv = {"ampbench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError&) {
    return -1;
  }
  return selected ? selected() : -2;
}

// The exit status with what the command printed.
inline Outcome cli_outcome(const std::vector<std::string>& args) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  const int code = cli_status(args);
  std::string out = testing::internal::GetCapturedStdout();
  return {code, out, testing::internal::GetCapturedStderr()};
}

}  // namespace ampbench::gate::test
