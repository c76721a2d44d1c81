#include "gate/run_set.h"

#include <map>

#include "gate/mann_whitney.h"

namespace ampbench::gate {

namespace {

// Which run's record speaks for a case: the worst outcome wins, so a failure
// in any run of the current side cannot hide behind the others.
int severity(const ResultsCase& c) {
  if (c.status == CaseStatus::kSkipped) return 0;
  if (c.conforms && *c.conforms) return 1;
  return c.status == CaseStatus::kError ? 3 : 2;
}

std::string settings_of(const ResultsCase& c) {
  return "unit \"" + c.unit + "\", input \"" + c.input + "\", batch_size " +
         (c.batch_size ? std::to_string(*c.batch_size) : "-") + ", world_size " +
         (c.world_size ? std::to_string(*c.world_size) : "-");
}

struct MergedCase {
  ResultsCase record;               // the worst run's record, samples replaced
  std::size_t worst_count = 1;     // runs with that same severity
  std::string settings_from;       // path whose throughput settings we hold
  std::vector<double> samples;     // per-run medians or pooled repetitions
  std::vector<std::size_t> sample_runs;
};

}  // namespace

bool use_run_medians(std::size_t baseline_runs, std::size_t current_runs) {
  return baseline_runs >= 2 && current_runs >= 2;
}

void require_same_suite_and_env(const std::vector<ResultsFile>& runs) {
  for (std::size_t i = 1; i < runs.size(); ++i) {
    if (runs[i].suite != runs[0].suite) {
      throw GateInputError(runs[i].path, "suite \"" + runs[i].suite + "\" differs from \"" + runs[0].suite +
                                             "\" in " + runs[0].path + "; runs of one side must be one suite");
    }
    if (const auto diffs = env_differences(runs[0], runs[i]); !diffs.empty()) {
      std::string text;
      for (const auto& d : diffs) text += (text.empty() ? "" : ", ") + d;
      throw GateInputError(runs[i].path, "environment differs from " + runs[0].path + " (" + text +
                                             "); runs of one side must come from one environment");
    }
  }
}

namespace {

// Folds a later run's view of a case into its merged record: the worst
// status wins, and counts how many runs showed it.
void fold_case(MergedCase& m, const ResultsCase& c, const ResultsFile& run) {
  if (c.has_throughput && m.record.has_throughput && settings_of(c) != settings_of(m.record)) {
    throw GateInputError(run.path, "case \"" + c.id + "\": throughput settings (" + settings_of(c) +
                                       ") differ from " + m.settings_from + " (" + settings_of(m.record) +
                                       "); runs of one side must measure alike");
  }
  if (severity(c) > severity(m.record)) {
    const std::size_t seen = m.record.runs;
    const bool had_throughput = m.record.has_throughput;
    m.record = c;
    m.record.runs = seen;
    m.record.has_throughput = m.record.has_throughput || had_throughput;
    m.worst_count = 1;
  } else if (severity(c) == severity(m.record)) {
    ++m.worst_count;
  }
}

// Samples accumulate, or one median per run.
void add_samples(MergedCase& m, const ResultsCase& c, std::size_t run_index, bool run_medians) {
  if (!c.has_throughput || c.samples.empty()) return;
  m.record.has_throughput = true;
  if (run_medians) {
    m.samples.push_back(median(c.samples));
    m.sample_runs.push_back(run_index);
  } else {
    m.samples.insert(m.samples.end(), c.samples.begin(), c.samples.end());
  }
}

void warn_partial(ResultsFile& out, const std::vector<std::string>& partial) {
  if (partial.empty()) return;
  std::string text;
  for (std::size_t i = 0; i < partial.size() && i < 8; ++i) text += (i ? ", " : "") + partial[i];
  if (partial.size() > 8) text += ", ... (" + std::to_string(partial.size() - 8) + " more)";
  out.notices.push_back("warning: " + std::to_string(partial.size()) + " case(s) are not in every run of " + out.path +
                        ": " + text);
}

}  // namespace

ResultsFile merge_runs(const std::vector<ResultsFile>& runs, bool run_medians) {
  if (runs.empty()) throw GateInputError("", "no results files given");
  if (runs.size() == 1) return runs[0];
  require_same_suite_and_env(runs);

  std::vector<std::string> order;
  std::map<std::string, MergedCase> merged;
  ResultsFile out = runs[0];
  out.cases.clear();
  out.runs = runs.size();
  out.run_medians = run_medians;
  out.path = runs[0].path + " (+" + std::to_string(runs.size() - 1) + " more)";
  for (std::size_t run_index = 0; run_index < runs.size(); ++run_index) {
    const ResultsFile& run = runs[run_index];
    out.complete = out.complete && run.complete;
    for (const auto& c : run.cases) {
      auto [it, is_new] = merged.try_emplace(c.id);
      MergedCase& m = it->second;
      if (is_new) {
        order.push_back(c.id);
        m.record = c;
        m.record.runs = 0;
        m.settings_from = run.path;
      } else {
        fold_case(m, c, run);
      }
      m.record.runs += 1;
      add_samples(m, c, run_index, run_medians);
    }
  }
  std::vector<std::string> partial;
  for (const auto& id : order) {
    MergedCase& m = merged.at(id);
    m.record.samples = std::move(m.samples);
    m.record.sample_runs = std::move(m.sample_runs);
    if (m.worst_count < m.record.runs) {
      const std::string head = "in " + std::to_string(m.worst_count) + " of " + std::to_string(m.record.runs) + " runs";
      m.record.reason = m.record.reason.empty() ? head : head + ": " + m.record.reason;
    }
    if (m.record.runs < runs.size())
      partial.push_back(id + " (" + std::to_string(m.record.runs) + " of " + std::to_string(runs.size()) + ")");
    out.cases.push_back(std::move(m.record));
  }
  warn_partial(out, partial);
  return out;
}

}  // namespace ampbench::gate
