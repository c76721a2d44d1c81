#include "runner/suite_run.h"

#include <iomanip>
#include <map>
#include <set>

namespace ampbench {

std::vector<CaseSpec> select_cases(const Suite& suite, const std::string& filter) {
  if (filter.empty()) return suite.cases;
  std::regex re;
  try {
    re = std::regex(filter);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument("--filter '" + filter + "' is not a valid regular expression: " + e.what());
  }
  std::set<std::string> keep;
  for (const CaseSpec& c : suite.cases) {
    if (!std::regex_search(c.id, re)) continue;
    keep.insert(c.id);
    if (!c.baseline_id.empty()) keep.insert(c.baseline_id);
  }
  std::vector<CaseSpec> out;
  for (const CaseSpec& c : suite.cases)
    if (keep.count(c.id)) out.push_back(c);
  return out;
}

namespace {

void print_line(std::ostream& out, int index, int total, const nlohmann::json& j) {
  std::string verdict = j["status"].get<std::string>();
  if (j["expect"] == "fail" && verdict == "fail") verdict = "caught";
  if (j["expect"] == "fail" && verdict == "pass") verdict = "MISSED";
  if (j["conforms"] == false && verdict == "fail") verdict = "FAIL";
  out << "[" << std::setw(3) << index << "/" << total << "] " << std::left << std::setw(52) << j["id"].get<std::string>()
      << std::setw(8) << verdict << std::right;
  if (j["throughput"].is_object()) {
    out << std::setw(12) << std::fixed << std::setprecision(1) << j["throughput"]["median"].get<double>()
        << " samples/s";
  }
  if (!j["reason"].is_null() && verdict != "pass") out << "  " << j["reason"].get<std::string>();
  out << std::endl;
}

std::vector<int> skipped_steps(const CaseRecord& r) {
  std::vector<int> steps;
  for (size_t i = 0; i < r.skipped.size(); ++i)
    if (r.skipped[i]) steps.push_back(static_cast<int>(i));
  return steps;
}

// A fp16 scaler legitimately skips steps (the first iterations while the
// scale calibrates, or on overflow). Comparing with an fp32 run that took
// those steps would read as a lag; so the fp32 reference is re-run skipping
// the same steps, and only rounding is left to compare.
Verdict check_against_baseline(const CaseRecord& record, const CaseRecord& baseline, const Runner& runner) {
  const std::vector<int> skips = skipped_steps(record);
  if (skips.empty() || record.skipped == baseline.skipped) return check_case(record, baseline);
  CaseSpec aligned = baseline.spec;
  aligned.skip_steps = skips;
  aligned.id = baseline.spec.id + "#aligned-to:" + record.spec.id;
  aligned.throughput.enabled = false;
  const CaseRecord reference = runner.run(aligned);
  if (reference.status != RunStatus::kRan) return check_case(record, baseline);
  return check_case(record, baseline, &reference);
}

}  // namespace

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress) {
  SuiteRunSummary summary;
  std::map<std::string, CaseRecord> baselines;
  int index = 0;
  for (const CaseSpec& spec : cases) {
    ++index;
    CaseRecord record = runner.run(spec);
    std::optional<Verdict> verdict;
    if (!spec.is_baseline() && record.status == RunStatus::kRan) {
      const auto base = baselines.find(spec.baseline_id);
      if (base == baselines.end() || base->second.status != RunStatus::kRan) {
        record.status = RunStatus::kSkipped;
        record.reason = "its fp32 baseline " + spec.baseline_id + " did not run";
      } else {
        verdict = check_against_baseline(record, base->second, runner);
      }
    }
    const nlohmann::json j = case_to_json(record, verdict);
    writer.add(j);
    print_line(progress, index, static_cast<int>(cases.size()), j);

    ++summary.cases;
    if (j["status"] == "skipped") {
      ++summary.skipped;
    } else if (j["conforms"] == true) {
      ++summary.passed;
    } else {
      ++summary.nonconforming;
    }
    if (spec.expect == Expect::kFail && j["status"] != "skipped") {
      ++summary.controls;
      if (j["status"] == "fail") ++summary.controls_caught;
    }
    if (spec.is_baseline()) baselines.emplace(spec.id, std::move(record));
  }
  return summary;
}

}  // namespace ampbench
