// The gate and baseline commands without the CLI parser: cmd_gate.cpp binds
// CLI11 options to these structs; tests call the functions directly.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "gate/baseline_store.h"
#include "gate/compare.h"

namespace ampbench::gate {

// Exit statuses: 0 no regression, 1 regression, 2 unusable input or output.
inline constexpr int kGateOk = 0;
inline constexpr int kGateRegression = 1;
inline constexpr int kGateUnusable = 2;

struct GateCommand {
  std::vector<std::string> baseline;  // empty: the stored baseline for the current env
  std::vector<std::string> current;   // several: runs of one suite, gated together
  std::string baseline_dir = kDefaultBaselineDir;
  std::string markdown;  // output paths, "" = not written
  std::string junit;
  GateOptions options;
};

// Compares, prints the text report to `out`, writes the Markdown/JUnit files.
// Errors go to `err` as "ampbench gate: error: FILE: problem".
int run_gate(const GateCommand& cmd, std::ostream& out, std::ostream& err);

struct BaselineUpdateCommand {
  std::vector<std::string> results;  // one or more runs of one suite and env
  std::string dir = kDefaultBaselineDir;
  bool allow_incomplete = false;
};

// Errors go to `err` as "ampbench baseline: error: FILE: problem" (exit 2).
int run_baseline_update(const BaselineUpdateCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace ampbench::gate
