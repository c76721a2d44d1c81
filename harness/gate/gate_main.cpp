#include "gate/gate_main.h"

#include <utility>

#include "gate/atomic_file.h"
#include "gate/report.h"
#include "io/output_path.h"

namespace ampbench::gate {

namespace {

// Input errors the validators did not anticipate (a JSON value of an
// unexpected type deep inside a file) still mean "unusable input".
template <typename F>
void rethrow_as_input_error(const std::string& file, F&& f) {
  try {
    f();
  } catch (const nlohmann::json::exception& e) {
    throw GateInputError(file, std::string("unexpected JSON content: ") + e.what());
  }
}

// A report written over the results it read destroyed them (even on an input
// error, since the error reports go to the same paths): refused first.
bool outputs_are_distinct(const GateCommand& cmd, std::ostream& err) {
  std::vector<io::PathUse> inputs;
  for (const std::string& f : cmd.current) inputs.push_back({"--current", f});
  for (const std::string& f : cmd.baseline) inputs.push_back({"--baseline", f});
  try {
    io::check_distinct_paths(inputs, {{"--markdown", cmd.markdown}, {"--junit", cmd.junit}}, {});
    return true;
  } catch (const std::invalid_argument& e) {
    err << "ampbench gate: error: " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int run_gate(const GateCommand& cmd, std::ostream& out, std::ostream& err) {
  if (!outputs_are_distinct(cmd, err)) return kGateUnusable;
  try {
    if (cmd.current.empty()) throw GateInputError("--current", "no results file given");
    const std::string& first = cmd.current.front();
    std::vector<std::string> baseline = cmd.baseline;
    if (baseline.empty()) {
      const nlohmann::json doc = read_json_file(first);
      if (detect_kind(doc) == InputKind::GoogleBenchmark) {
        throw GateInputError(first, "Google Benchmark JSON has no stored baselines; pass --baseline FILE");
      }
      const StoredBaseline stored = find_baseline(parse_results(doc, first), cmd.baseline_dir);
      baseline = stored.runs;
      out << "ampbench gate: using baseline " << stored.folder << " (" << stored.runs.size() << " run"
          << (stored.runs.size() == 1 ? "" : "s") << ")\n";
    }
    GateReport report;
    rethrow_as_input_error(first, [&] { report = compare_files(baseline, cmd.current, cmd.options); });
    write_text_report(report, out);
    out.flush();
    if (!cmd.markdown.empty()) write_file_atomic(cmd.markdown, markdown_report(report));
    if (!cmd.junit.empty()) write_file_atomic(cmd.junit, junit_report(report));
    if (report.exit_code() == 0) return kGateOk;
    // Exit 1 says why on stderr too (the table above went to stdout).
    err << "ampbench gate: error: " << report.count(GateVerdict::Regression)
        << " regression(s) against the baseline; see the rows marked above\n";
    return kGateRegression;
  } catch (const GateInputError& e) {
    out.flush();
    err << "ampbench gate: error: " << e.what() << "\n";
    // Leave a report behind for CI steps that expect one; best effort (the
    // error may have been about these very paths).
    for (const auto& [path, text] : {std::pair{cmd.markdown, markdown_error(e.what())},
                                     std::pair{cmd.junit, junit_error(e.what())}}) {
      if (path.empty()) continue;
      try {
        write_file_atomic(path, text);
      } catch (const GateInputError&) {
      }
    }
    return kGateUnusable;
  }
}

int run_baseline_update(const BaselineUpdateCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const BaselineUpdate u = update_baseline(cmd.results, cmd.dir, cmd.allow_incomplete);
    out << "ampbench baseline: " << (u.replaced.empty() ? "wrote " : "replaced ") << u.path << " (" << u.runs
        << " run" << (u.runs == 1 ? "" : "s") << ", " << u.cases << " cases)\n";
    return kGateOk;
  } catch (const GateInputError& e) {
    err << "ampbench baseline: error: " << e.what() << "\n";
    return kGateUnusable;
  }
}

}  // namespace ampbench::gate
