#include "session/suite_run.h"
#include "runner/case_filter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace ampbench {

namespace {

}  // namespace

std::vector<CaseSpec> select_cases(const Suite& suite, const std::string& filter) {
  if (filter.empty()) return suite.cases;
  const auto matches = parse_case_filter(filter);
  std::set<std::string> keep;
  for (const CaseSpec& c : suite.cases) {
    if (!matches(c)) continue;
    keep.insert(c.id);
    if (!c.baseline_id.empty()) keep.insert(c.baseline_id);
  }
  std::vector<CaseSpec> out;
  for (const CaseSpec& c : suite.cases)
    if (keep.count(c.id)) out.push_back(c);
  return out;
}

namespace {

// Median samples/s over the fp32 case's, when both were measured: the two
// medians the results file reports, so a reader can recompute the ratio.
void add_speedup(nlohmann::json& j, const std::map<std::string, double>& fp32_medians,
                 const std::string& baseline_id) {
  const auto base = fp32_medians.find(baseline_id);
  if (!j["throughput"].is_object() || base == fp32_medians.end() || !(base->second > 0)) return;
  j["throughput"]["speedup_vs_fp32"] = j["throughput"]["median"].get<double>() / base->second;
}

// With measured ceilings in env (`ampbench qualify`): achieved FLOP/s over
// the matrix ceiling of the case's precision (model FLOP utilisation), and
// what the ceilings promise fp16/bf16 should gain over fp32.
void add_utilization(nlohmann::json& j, const nlohmann::json& env) {
  if (!j["throughput"].is_object() || !env.contains("ceilings")) return;
  const nlohmann::json& tflops = env["ceilings"]["matmul_tflops"];
  const std::string precision = j["precision"].get<std::string>();
  nlohmann::json& t = j["throughput"];
  const auto ceiling = [&](const std::string& p) -> double {
    return tflops.contains(p) && tflops[p].is_number() ? tflops[p].get<double>() * 1e12 : 0.0;
  };
  t["model_flop_utilization"] = nullptr;
  t["ceiling_speedup_vs_fp32"] = nullptr;
  if (ceiling(precision) > 0)
    t["model_flop_utilization"] = t["achieved_flops_per_s"].get<double>() / ceiling(precision);
  if (ceiling(precision) > 0 && ceiling("fp32") > 0) t["ceiling_speedup_vs_fp32"] = ceiling(precision) / ceiling("fp32");
}

std::string format_seconds(double s) {
  std::ostringstream out;
  const int total = static_cast<int>(std::lround(s));
  if (total >= 60) out << total / 60 << "m" << std::setw(2) << std::setfill('0') << total % 60 << "s";
  else out << total << "s";
  return out.str();
}

// "[  3/40] id  verdict  samples/s  elapsed 12s eta 2m40s  reason"
void print_line(std::ostream& out, int index, int total, const nlohmann::json& j, double elapsed) {
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
  const double eta = elapsed / index * (total - index);
  out << "  " << format_seconds(elapsed) << " eta " << format_seconds(eta);
  if (!j["reason"].is_null() && verdict != "pass") out << "  " << j["reason"].get<std::string>();
  out << std::endl;
}

// [optimizer] -> the steps at which it skipped.
std::vector<std::vector<int>> skipped_steps(const CaseRecord& r) {
  std::vector<std::vector<int>> steps;
  for (size_t step = 0; step < r.optimizer_skipped.size(); ++step) {
    const std::vector<bool>& per_opt = r.optimizer_skipped[step];
    if (steps.size() < per_opt.size()) steps.resize(per_opt.size());
    for (size_t i = 0; i < per_opt.size(); ++i)
      if (per_opt[i]) steps[i].push_back(static_cast<int>(step));
  }
  return steps;
}

bool any(const std::vector<std::vector<int>>& steps) {
  for (const auto& s : steps)
    if (!s.empty()) return true;
  return false;
}

// A fp16 scaler legitimately skips steps, optimizer by optimizer (the first iterations while the
// scale calibrates, or on overflow). Comparing with an fp32 run that took
// those steps would read as a lag; so the fp32 reference is re-run skipping
// the same steps, and only rounding is left to compare.
Verdict check_against_baseline(const CaseRecord& record, const CaseRecord& baseline, const Runner& runner) {
  const std::vector<std::vector<int>> skips = skipped_steps(record);
  if (!any(skips) || record.optimizer_skipped == baseline.optimizer_skipped) return check_case(record, baseline);
  CaseSpec aligned = baseline.spec;
  aligned.skip_steps = skips;
  aligned.id = baseline.spec.id + "#aligned-to:" + record.spec.id;
  aligned.throughput.enabled = false;
  const CaseRecord reference = runner.run(aligned);
  if (reference.status != RunStatus::kRan) return check_case(record, baseline);
  return check_case(record, baseline, &reference);
}

}  // namespace

void SuiteRunSummary::add(const nlohmann::json& c) {
  ++cases;
  if (c["status"] == "skipped") {
    ++skipped;
  } else if (c["conforms"] == true) {
    ++passed;
  } else {
    ++nonconforming;
  }
  if (c["expect"] == "fail" && c["status"] != "skipped") {
    ++controls;
    if (c["status"] == "fail") ++controls_caught;
  }
  if (!c["check"].is_object()) return;
  const nlohmann::json& ratio_json = c["check"].value("max_ratio", nlohmann::json());
  const double ratio = ratio_json.is_number() ? ratio_json.get<double>() : INFINITY;
  const std::string id = c["id"].get<std::string>();
  if (c["expect"] == "pass" && c["status"] == "pass" && ratio > worst_correct_ratio) {
    worst_correct_ratio = ratio;
    worst_correct_id = id;
  }
  if (c["expect"] == "fail" && c["status"] == "fail") {
    if (!(ratio > 1)) {
      ++controls_caught_by_audit;
    } else if (ratio < mildest_control_ratio) {
      mildest_control_ratio = ratio;
      mildest_control_id = id;
    }
  }
}

std::string SuiteRunSummary::teeth() const {
  if (worst_correct_id.empty() || mildest_control_id.empty()) return "";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << "teeth: worst correct case at " << worst_correct_ratio
      << " of its bound (" << worst_correct_id << "), mildest control at " << mildest_control_ratio << " ("
      << mildest_control_id << "): margin " << std::setprecision(1) << mildest_control_ratio / worst_correct_ratio
      << "x";
  if (controls_caught_by_audit > 0)
    out << "; " << controls_caught_by_audit << " control(s) caught by the scale audit or skipped-step rule";
  return out.str();
}

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress) {
  SuiteRunSummary summary;
  std::map<std::string, CaseRecord> baselines;
  std::map<std::string, double> fp32_medians;  // written throughput.median of each baseline
  const auto began = std::chrono::steady_clock::now();
  int index = 0;
  for (const CaseSpec& spec : cases) {
    ++index;
    CaseRecord record = runner.run(spec);
    std::optional<EngagementSummary> engagement;
    if (record.status == RunStatus::kRan) {
      engagement = summarize_engagement(record);
      if (const auto why = engagement_failure(record, *engagement)) {
        record.status = RunStatus::kError;
        record.reason = *why;
      }
    }
    if (spec.is_baseline() && record.status == RunStatus::kRan && record.rank_disagreement) {
      record.status = RunStatus::kError;  // no verdict of its own, and no reference for others
      record.reason = "fp32 baseline unusable: " + *record.rank_disagreement;
    }
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
    nlohmann::json j = case_to_json(record, verdict, engagement);
    if (!spec.is_baseline()) add_speedup(j, fp32_medians, spec.baseline_id);
    if (spec.is_baseline() && j["throughput"].is_object()) {
      fp32_medians[spec.id] = j["throughput"]["median"].get<double>();
    }
    add_utilization(j, writer.document()["env"]);
    writer.add(j);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    print_line(progress, index, static_cast<int>(cases.size()), j, elapsed);

    summary.add(j);
    if (spec.is_baseline()) baselines.emplace(spec.id, std::move(record));
  }
  return summary;
}

}  // namespace ampbench
