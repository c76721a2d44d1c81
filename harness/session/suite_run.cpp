#include "session/suite_run.h"
#include "session/case_verdict.h"
#include "check/convergence_verdict.h"
#include "session/eta.h"
#include "session/run_order.h"
#include "runner/case_filter.h"
#include "runner/nonfinite.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace ampbench {

namespace {

// A baseline trains envelope replicas for each precision the suite compares
// with it; once a filter has left some of those cases out, their replicas
// (three fp32 trainings per precision) would be trained for nothing. Each
// precision's replicas are seeded apart from the others', so the envelopes
// kept are the ones the whole suite would measure.
void keep_needed_envelopes(std::vector<CaseSpec>& cases) {
  std::map<std::string, std::set<Precision>> compared;  // baseline id -> precisions judged against it
  for (const CaseSpec& c : cases)
    if (!c.is_baseline()) compared[c.baseline_id].insert(c.precision.precision());
  for (CaseSpec& c : cases) {
    if (!c.is_baseline()) continue;
    const std::set<Precision>& used = compared[c.id];
    std::erase_if(c.envelope_precisions, [&](Precision p) { return !used.count(p); });
  }
}

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
  keep_needed_envelopes(out);
  return out;
}

namespace {

std::string format_seconds(double s) {
  std::ostringstream out;
  const int total = static_cast<int>(std::lround(s));
  if (total >= 60) out << total / 60 << "m" << std::setw(2) << std::setfill('0') << total % 60 << "s";
  else out << total << "s";
  return out.str();
}

// "[  3/40] id  verdict  samples/s  elapsed 12s eta 2m40s  reason"
void print_line(std::ostream& out, int index, int total, const CaseResult& r, double elapsed, double eta) {
  std::string verdict = to_string(r.status);
  if (r.is_control() && r.status == CaseStatus::kFail) verdict = "caught";
  if (r.is_control() && r.status == CaseStatus::kPass) verdict = "MISSED";
  if (r.conforms == false && r.status == CaseStatus::kFail) verdict = "FAIL";
  // An id wider than its column still keeps two spaces before its verdict.
  out << "[" << std::setw(3) << index << "/" << total << "] " << std::left << std::setw(50) << r.id() << "  "
      << std::setw(8) << verdict << std::right;
  if (r.throughput)
    out << std::setw(12) << std::fixed << std::setprecision(1) << r.throughput->median << " samples/s";
  out << "  " << format_seconds(elapsed) << " eta " << format_seconds(eta);
  // A pass has no reason to show, unless fresh seeds overruled its own seed's failure.
  if (!r.reason.empty() && (r.status != CaseStatus::kPass || (r.verdict && !r.verdict->overruled_failures.empty())))
    out << "  " << r.reason;
  out << std::endl;
}

}  // namespace

CaseTally tally_of(const CaseResult& r) {
  CaseTally t{r.id(), r.status, r.is_control(), r.record.spec.expect == Expect::kReport, r.conforms == true,
              r.max_ratio()};
  if (r.verdict) {
    t.confirmations = static_cast<int>(r.verdict->confirmations.size());
    t.cleared = !r.verdict->overruled_failures.empty();
    t.audited = r.verdict->scale_audit_failed;
  }
  return t;
}

CaseTally tally_of(const ResultsCase& c) {
  CaseTally t{c.id, c.status, c.expect == Expect::kFail, c.expect == Expect::kReport, c.conforms == true, c.max_ratio};
  t.audited = c.scale_audit_failed;
  return t;
}

void SuiteRunSummary::add(const CaseTally& c) {
  ++cases;
  if (c.status != CaseStatus::kSkipped && !c.conforms) ++nonconforming;
  const bool failed = c.status == CaseStatus::kFail;
  if (c.status == CaseStatus::kSkipped) {
    ++skipped;
  } else if (c.status == CaseStatus::kError) {
    ++errors;  // no verdict, whatever was expected
  } else if (c.control) {
    ++controls;
    if (failed) ++controls_caught;
  } else if (c.reported) {
    ++reported;
    if (failed) ++reported_unpassed;
  } else {
    ++(failed ? correct_failed : correct_passed);
  }
  if (c.max_ratio) add_ratio(c, *c.max_ratio);
  if (c.confirmations > 0) {
    ++borderline;
    confirmation_runs += c.confirmations;
    if (c.cleared) ++cleared;
  }
}

void SuiteRunSummary::add_ratio(const CaseTally& c, double ratio) {
  if (!c.control && !c.reported && c.status == CaseStatus::kPass && ratio > worst_correct_ratio) {
    worst_correct_ratio = ratio;
    worst_correct_id = c.id;
  }
  if (c.control && c.status == CaseStatus::kFail) {
    if (!(ratio > 1) || c.audited) {
      ++controls_caught_by_audit;
    } else if (ratio < mildest_control_ratio) {
      mildest_control_ratio = ratio;
      mildest_control_id = c.id;
    }
  }
}

void SuiteRunSummary::add_unfinished(int count) {
  unfinished += count;
  nonconforming += count;
}

namespace {

std::string counted(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string SuiteRunSummary::counts() const {
  std::string out = counted(correct_passed, "correct case passed", "correct cases passed");
  if (correct_failed > 0) out += ", " + std::to_string(correct_failed) + " FAILED";
  if (controls > 0) {
    out += "; " + std::to_string(controls_caught) + " of " +
           counted(controls, "negative control", "negative controls") + " caught";
    if (controls > controls_caught) out += ", " + std::to_string(controls - controls_caught) + " MISSED";
  }
  if (reported > 0) {
    out += "; " + std::to_string(reported) + " reported only";
    if (reported_unpassed > 0)
      out += " (" + std::to_string(reported_unpassed) + " did not pass its check: shown, not required)";
  }
  if (errors > 0) out += "; " + counted(errors, "error", "errors");
  if (unfinished > 0) out += "; " + std::to_string(unfinished) + " did not finish";
  out += "; " + std::to_string(skipped) + " skipped";
  if (borderline > 0)
    out += "; " + counted(borderline, "borderline case", "borderline cases") + " re-run from fresh seeds (" +
           counted(confirmation_runs, "run", "runs") + "), " + std::to_string(cleared) + " cleared";
  return out;
}

std::optional<double> SuiteRunSummary::teeth_margin() const {
  if (worst_correct_id.empty() || mildest_control_id.empty() || !(worst_correct_ratio > 0)) return std::nullopt;
  return mildest_control_ratio / worst_correct_ratio;
}

std::string SuiteRunSummary::teeth() const {
  const std::optional<double> margin = teeth_margin();
  if (!margin) return "";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << "teeth: worst correct case at " << worst_correct_ratio
      << " of its bound (" << worst_correct_id << "), mildest control at " << mildest_control_ratio << " ("
      << mildest_control_id << "): margin " << std::setprecision(1) << *margin << "x";
  if (controls_caught_by_audit > 0)
    out << "; " << controls_caught_by_audit << " control(s) caught by the scale audit or skipped-step rule";
  return out.str();
}

nlohmann::json SuiteRunSummary::to_json() const {
  nlohmann::json counts = {{"cases", cases},
                           {"correct_passed", correct_passed},
                           {"correct_failed", correct_failed},
                           {"controls", controls},
                           {"controls_caught", controls_caught},
                           {"reported", reported},
                           {"reported_unpassed", reported_unpassed},
                           {"errors", errors},
                           {"skipped", skipped},
                           {"unfinished", unfinished},
                           {"borderline", borderline},
                           {"confirmation_runs", confirmation_runs},
                           {"cleared", cleared}};
  nlohmann::json teeth_json = nullptr;
  if (const std::optional<double> margin = teeth_margin()) {
    teeth_json = {{"worst_correct_ratio", worst_correct_ratio}, {"worst_correct_id", worst_correct_id},
                  {"mildest_control_ratio", mildest_control_ratio}, {"mildest_control_id", mildest_control_id},
                  {"margin", *margin}, {"controls_caught_by_audit", controls_caught_by_audit},
                  {"line", teeth()}};
  }
  return {{"counts", counts}, {"counts_line", this->counts()}, {"teeth", teeth_json}};
}

Ceilings ceilings_from_env(const nlohmann::json& env) {
  Ceilings out;
  if (!env.contains("ceilings") || !env["ceilings"].contains("matmul_tflops")) return out;
  for (const auto& [precision, tflops] : env["ceilings"]["matmul_tflops"].items())
    if (tflops.is_number()) out[precision] = tflops.get<double>() * 1e12;
  return out;
}

namespace {

// Why a case has no verdict when its baseline has none: the baseline's own
// reason (a vacuous clip names its setting there), not just "did not run".
std::string not_judged_reason(const std::string& baseline_id, const CaseRecord* baseline) {
  if (!baseline) return "not judged: its fp32 baseline " + baseline_id + " did not run";
  const char* what = baseline->status == RunStatus::kSkipped ? " was skipped" : " is unusable";
  return "not judged: its fp32 baseline " + baseline_id + what +
         (baseline->reason.empty() ? "" : " (" + baseline->reason + ")");
}

// A converge case: the fp32 reference must itself reach the target (else the
// suite's input is unusable: the run stops, exit 2); every other case is held
// to the convergence rule against it. No engagement rule, no fresh-seed
// confirmation: the rule already runs every seed.
CaseResult judge_convergence(CaseRecord record, const std::map<std::string, CaseRecord>& baselines,
                             std::optional<double> fp32_median, const RunContext& context) {
  const CaseSpec& spec = record.spec;
  std::optional<Verdict> verdict;
  if (record.status == RunStatus::kRan && spec.is_baseline()) {
    if (std::string why = reference_refusal(*record.convergence, *spec.convergence); !why.empty()) {
      record.status = RunStatus::kError;
      record.reason = "unusable input: " + why;
      record.input_unusable = true;
    }
  } else if (record.status == RunStatus::kRan) {
    const auto base = baselines.find(spec.baseline_id);
    if (base == baselines.end() || base->second.status != RunStatus::kRan) {
      record.status = RunStatus::kSkipped;
      record.reason = not_judged_reason(spec.baseline_id, base == baselines.end() ? nullptr : &base->second);
    } else {
      verdict = convergence_verdict(record, base->second);
    }
  }
  return make_case_result(std::move(record), std::move(verdict), std::nullopt, fp32_median, context.ceilings);
}

// CaseRecord -> checks -> CaseResult: the engagement rule and rank agreement
// first (a mechanism that did not engage, or ranks that disagree, leave no
// verdict to trust), then the comparison with the fp32 baseline.
CaseResult judge(CaseRecord record, const std::map<std::string, CaseRecord>& baselines, const Runner& runner,
                 const RunContext& context, std::optional<double> fp32_median) {
  const CaseSpec& spec = record.spec;
  std::optional<EngagementSummary> engagement;
  if (spec.convergence) return judge_convergence(std::move(record), baselines, fp32_median, context);
  if (record.status == RunStatus::kRan) {
    engagement = summarize_engagement(record);
    // A case that went non-finite did not "fail to engage": its verdict names
    // where the first non-finite value appeared, the cause to report.
    const auto why = record.nonfinite ? std::nullopt : engagement_failure(record, *engagement);
    if (why) {
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
      record.reason = not_judged_reason(spec.baseline_id, base == baselines.end() ? nullptr : &base->second);
    } else {
      verdict = check_against_baseline(record, base->second, runner);
      // Not required of reported-only cases: their verdict is shown, not counted.
      const CaseRun same_implementation = [&](const CaseSpec& s) { return run_case(s, runner, context.compiled); };
      if (spec.expect != Expect::kReport)
        confirm_borderline(*verdict, spec, base->second.spec, runner, context.confirmation, same_implementation);
      if (context.compiled) add_emulated_distance(record, *verdict, base->second, runner, *context.compiled);
      if (record.nonfinite && !verdict->failures.empty() && !has_unabsorbed_nonfinite(base->second))
        verdict->failures.front() += "; fp32 (" + spec.baseline_id + ") ran clean: go back to fp32 here, or scale the "
                                     "loss (GradScaler) or use bf16";
    }
  }
  return make_case_result(std::move(record), std::move(verdict), std::move(engagement), fp32_median,
                          context.ceilings);
}

}  // namespace

SuiteRunSummary run_cases(const std::vector<CaseSpec>& cases, const Runner& runner, ResultsWriter& writer,
                          std::ostream& progress, const RunContext& context) {
  SuiteRunSummary summary;
  std::map<std::string, CaseRecord> baselines;
  std::map<std::string, double> fp32_medians;  // throughput median of each baseline
  const auto began = std::chrono::steady_clock::now();
  const std::vector<CaseSpec> ordered = run_order(cases);
  EtaModel eta(ordered);
  double before = 0;  // seconds elapsed when the case began
  int index = 0;
  for (const CaseSpec& spec : ordered) {
    ++index;
    std::optional<double> fp32_median;
    if (const auto m = fp32_medians.find(spec.baseline_id); m != fp32_medians.end()) fp32_median = m->second;
    CaseResult result = judge(run_case(spec, runner, context.compiled), baselines, runner, context, fp32_median);
    if (spec.is_baseline() && result.throughput) fp32_medians[spec.id] = result.throughput->median;
    writer.add(result);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    eta.finished(index - 1, elapsed - before);
    before = elapsed;
    print_line(progress, index, static_cast<int>(ordered.size()), result, elapsed, eta.remaining());
    summary.add(tally_of(result));
    if (result.record.input_unusable) {
      // Nothing more runs: every case after would be judged against it.
      summary.unusable_input = result.reason;
      break;
    }
    if (spec.is_baseline()) baselines.emplace(spec.id, std::move(result.record));
  }
  return summary;
}

}  // namespace ampbench
