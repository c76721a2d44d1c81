// `ampbench gate` and `ampbench baseline update`: CLI11 bindings for
// gate/gate_main.h. Compiled into the ampbench executable (links ampbench_gate).
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/finite_range.h"
#include "gate/gate_main.h"

namespace ampbench::cli {

namespace {

// Flags of the two-sided gate that mean nothing against a history: refused
// with --history rather than silently ignored.
constexpr const char* kNotWithHistory[] = {
    "--baseline", "--baseline-dir", "--alpha", "--paired", "--conformance-only", "--allow-env-mismatch",
    "--allow-missing", "--allow-suite-mismatch", "--allow-incomplete", "--allow-incomplete-baseline",
    "--allow-new-skips", "--correction", "--metric"};

// `ampbench gate --history DB`: the Python history's gate (python -m history
// gate), which judges one run against the last runs of the same series.
int run_history_gate(CLI::App* sub, const std::string& db, const gate::GateCommand& cmd,
                     const HistoryRunner& run_history) {
  for (const char* flag : kNotWithHistory) {
    if (sub->count(flag) > 0) {
      std::cerr << "ampbench gate: error: " << flag << " does not apply with --history (the history's runs are "
                << "the baseline; see docs/history.md)\n";
      return kExitUsage;
    }
  }
  if (cmd.current.size() != 1) {
    std::cerr << "ampbench gate: error: --history judges one --current results file at a time, got "
              << cmd.current.size() << "\n";
    return kExitUsage;
  }
  std::vector<std::string> args = {"gate", "--db", db, "--current", cmd.current.front()};
  if (sub->count("--min-effect") > 0) {
    args.push_back("--min-effect");
    args.push_back(std::to_string(cmd.options.min_effect));
  }
  if (cmd.options.rehearsal) args.push_back("--rehearsal");
  for (const auto& [flag, path] : {std::pair{"--markdown", cmd.markdown}, std::pair{"--junit", cmd.junit}}) {
    if (path.empty()) continue;
    args.push_back(flag);
    args.push_back(path);
  }
  return run_history(args);
}

}  // namespace

void add_gate_command(CLI::App& app, Action& selected, HistoryRunner run_history) {
  auto cmd = std::make_shared<gate::GateCommand>();
  auto metric = std::make_shared<std::string>("auto");
  auto correction = std::make_shared<std::string>("bh");
  auto history = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "gate", "Compare current results with a baseline: exit 0 clean, 1 regression, 2 unusable input");
  sub->add_option("--baseline", cmd->baseline,
                  "Baseline results (or one Google Benchmark JSON); several files are runs of one suite, "
                  "compared by their per-run medians; default: the baseline in --baseline-dir matching the "
                  "current results' environment")
      ->type_name("FILE...");
  sub->add_option("--history", *history,
                  "Judge one current run against the last runs of the same case, machine kind, torch and "
                  "implementation in this history database (SQLite file or postgresql:// URL; ampbench history "
                  "ingest fills it) instead of a baseline: python -m history gate, docs/history.md")
      ->type_name("DB");
  sub->add_option("--current", cmd->current,
                  "Current results (or one Google Benchmark JSON); give several runs (4 or more at alpha 0.05) "
                  "to gate per-run medians, which absorbs run-to-run noise")
      ->type_name("FILE...")
      ->required();
  sub->add_option("--baseline-dir", cmd->baseline_dir, "Where stored baselines live (used without --baseline)")
      ->type_name("DIR")
      ->capture_default_str();
  sub->add_option("--alpha", cmd->options.alpha, "Significance level of the two-sided Mann-Whitney U test")
      ->check(FiniteRange(1e-12, 1.0))
      ->capture_default_str();
  sub->add_option("--min-effect", cmd->options.min_effect,
                  "Minimum relative median change that counts, as a fraction (0.05 = 5%); a case's "
                  "\"gate\": {\"min_effect\": x} or the results' top-level \"gate\" object takes precedence")
      ->check(FiniteRange(0.0, 1.0))
      ->capture_default_str();
  sub->add_flag("--paired", cmd->options.paired,
                "The runs were interleaved (B1 C1 B2 C2 ...): pair baseline run i with current run i and test "
                "the per-pair ratios (Wilcoxon signed-rank), which cancels machine drift shared by a pair");
  sub->add_flag("--conformance-only", cmd->options.conformance_only,
                "Gate conformance only; throughput medians are shown but never fail the gate (for runners "
                "too noisy for the throughput gate: see ci/calibrate-gate.sh)");
  sub->add_flag("--allow-env-mismatch", cmd->options.allow_env_mismatch,
                "Compare throughput even when the environment fingerprints differ");
  sub->add_flag("--allow-missing", cmd->options.allow_missing,
                "Cases missing from the current results are warnings, not regressions");
  sub->add_flag("--allow-suite-mismatch", cmd->options.allow_suite_mismatch,
                "Compare results of different suites (the cases they share) instead of refusing them");
  sub->add_flag("--allow-incomplete", cmd->options.allow_incomplete,
                "Gate a current run that did not finish (complete=false); its missing cases count as missing");
  sub->add_flag("--allow-incomplete-baseline", cmd->options.allow_incomplete_baseline,
                "Use a baseline run that did not finish (complete=false); the cases it lacks show as new");
  sub->add_flag("--allow-new-skips", cmd->options.allow_new_skips,
                "Newly skipped cases are warnings, not regressions");
  sub->add_flag("--rehearsal", cmd->options.rehearsal,
                "Gate results made with a test-only fault switch (--inject-slowdown, --inject-bitflip), which are "
                "otherwise refused as no measurement: for rehearsing that the gate fires");
  sub->add_option("--correction", *correction,
                  "How the throughput rows share alpha: bh = a row is significant when its Benjamini-Hochberg "
                  "q-value over all rows is below alpha (an A/A stays quiet however many rows); none = each row "
                  "at alpha")
      ->check(CLI::IsMember({"bh", "none"}))
      ->capture_default_str();
  sub->add_option("--metric", *metric, "Google Benchmark input: the value compared (auto = items_per_second when "
                                       "every repetition reports it, else real_time)")
      ->check(CLI::IsMember({"auto", "real_time", "cpu_time", "items_per_second"}))
      ->capture_default_str();
  sub->add_option("--markdown", cmd->markdown, "Also write a Markdown report (GitHub step summary)")
      ->type_name("FILE");
  sub->add_option("--junit", cmd->junit, "Also write a JUnit XML report")->type_name("FILE");
  sub->callback([sub, cmd, metric, correction, history, run_history, &selected] {
    if (sub->count("--history") > 0) {
      selected = [sub, cmd, history, run_history] { return run_history_gate(sub, *history, *cmd, run_history); };
      return;
    }
    selected = [cmd, metric, correction] {
      cmd->options.metric = gate::parse_bench_metric(*metric).value_or(gate::BenchMetric::Auto);
      cmd->options.correction =
          *correction == "none" ? gate::Correction::None : gate::Correction::BenjaminiHochberg;
      return gate::run_gate(*cmd, std::cout, std::cerr);
    };
  });
}

void add_baseline_command(CLI::App& app, Action& selected) {
  CLI::App* sub = app.add_subcommand("baseline", "Manage stored baselines for `ampbench gate`");
  sub->require_subcommand(1);
  auto cmd = std::make_shared<gate::BaselineUpdateCommand>();
  CLI::App* update = sub->add_subcommand(
      "update", "Store results files (runs of one suite) as the baseline for their environment: "
                "DIR/<suite>__<device>__<gpu or cpu>__torch-<version>[__cuda-<runtime>]/run-NN.json");
  update->add_option("--results", cmd->results, "Results files to store (one per run; 4 or more let the gate "
                                                "compare per-run medians)")
      ->type_name("FILE...")
      ->required();
  update->add_option("--dir", cmd->dir, "Baseline folder")->type_name("DIR")->capture_default_str();
  update->add_flag("--allow-incomplete", cmd->allow_incomplete, "Accept a results file with \"complete\": false");
  update->callback([cmd, &selected] {
    selected = [cmd] { return gate::run_baseline_update(*cmd, std::cout, std::cerr); };
  });
}

}  // namespace ampbench::cli
