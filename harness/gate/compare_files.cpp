// The gate's entry point over files: loads both sides, checks they are of
// one kind, merges each side's runs, and picks the comparison.
#include "gate/compare.h"
#include "gate/run_set.h"

namespace ampbench::gate {

namespace {

struct Side {
  std::vector<std::string> paths;
  std::vector<nlohmann::json> docs;
  std::vector<InputKind> kinds;
};

Side load_side(const std::vector<std::string>& paths, const char* which) {
  if (paths.empty()) throw GateInputError(std::string("--") + which, "no file given");
  Side side{paths, {}, {}};
  for (const auto& p : paths) {
    side.docs.push_back(read_json_file(p));
    side.kinds.push_back(detect_kind(side.docs.back()));
  }
  return side;
}

// A run made with a fault switch measured the fault: gated only when the
// user says it is a rehearsal, and then the report says so.
void screen_injected_faults(const ResultsFile& run, const GateOptions& options, std::vector<std::string>& notices) {
  const std::vector<std::string> faults = injected_faults(run);
  if (faults.empty()) return;
  const std::string made_with = "was made with " + faults.front() + ", a test-only fault switch";
  if (!options.rehearsal) {
    throw GateInputError(run.path, made_with + ": it is not a measurement; pass --rehearsal to gate it as a "
                                               "rehearsal of the gate");
  }
  notices.push_back("warning: rehearsal: " + run.path + " " + made_with);
}

ResultsFile parse_side(const Side& side, bool per_run, const GateOptions& options) {
  std::vector<ResultsFile> runs;
  std::vector<std::string> notices;
  for (std::size_t i = 0; i < side.docs.size(); ++i) {
    runs.push_back(parse_results(side.docs[i], side.paths[i]));
    screen_injected_faults(runs.back(), options, notices);
  }
  ResultsFile merged = merge_runs(std::move(runs), per_run);
  merged.notices.insert(merged.notices.end(), notices.begin(), notices.end());
  return merged;
}

}  // namespace

GateReport compare_files(const std::vector<std::string>& baseline_paths, const std::vector<std::string>& current_paths,
                         const GateOptions& options) {
  const Side base = load_side(baseline_paths, "baseline");
  const Side cur = load_side(current_paths, "current");
  const InputKind kind = base.kinds[0];
  for (const Side* side : {&base, &cur}) {
    for (std::size_t i = 0; i < side->docs.size(); ++i) {
      if (side->kinds[i] == kind) continue;
      // Validate each on its own first so a broken file is named for what it is.
      if (kind == InputKind::AmpbenchResults) parse_results(base.docs[0], base.paths[0]);
      if (side->kinds[i] == InputKind::AmpbenchResults) parse_results(side->docs[i], side->paths[i]);
      throw GateInputError(side->paths[i], std::string("is ") + to_string(side->kinds[i]) + " but the baseline " +
                                               base.paths[0] + " is " + to_string(kind) +
                                               "; compare files of one kind");
    }
  }
  if (kind == InputKind::GoogleBenchmark) {
    if (options.paired) {
      throw GateInputError(cur.paths[0],
                           "--paired pairs runs of ampbench results; Google Benchmark JSON holds its "
                           "repetitions in one file");
    }
    for (const Side* side : {&base, &cur}) {
      if (side->paths.size() > 1) {
        throw GateInputError(side->paths[1],
                             "one Google Benchmark file per side: repeat inside one file with "
                             "--benchmark_repetitions instead");
      }
    }
    return compare_gbench(parse_gbench(base.docs[0], base.paths[0]), parse_gbench(cur.docs[0], cur.paths[0]), options);
  }
  if (options.paired && (base.paths.size() != cur.paths.size() || cur.paths.size() < 2)) {
    throw GateInputError(cur.paths.back(), "--paired needs the same number of runs on both sides, at least 2 (got " +
                                               std::to_string(base.paths.size()) + " baseline, " +
                                               std::to_string(cur.paths.size()) + " current)");
  }
  const bool per_run = use_run_medians(base.paths.size(), cur.paths.size());
  return compare_results(parse_side(base, per_run, options), parse_side(cur, per_run, options), options);
}

GateReport compare_files(const std::string& baseline_path, const std::string& current_path,
                         const GateOptions& options) {
  return compare_files(std::vector<std::string>{baseline_path}, std::vector<std::string>{current_path}, options);
}

}  // namespace ampbench::gate
