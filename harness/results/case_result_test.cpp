// CaseResult: each fact computed once from the record and verdict, and the
// summary counts the same from the result as from its JSON.
#include "results/case_result.h"

#include <gtest/gtest.h>

#include "gate/test_util.h"
#include "results/results_file.h"
#include "results/results_writer.h"
#include "session/suite_run.h"
#include "spec/workload_traits.h"

namespace ampbench {
namespace {

CaseRecord ran(Expect expect, Precision precision = Precision::kFp16) {
  CaseRecord r;
  r.status = RunStatus::kRan;
  r.spec.id = "plain/mlp/x/sgd";
  r.spec.workload = &workload_traits("plain");
  r.spec.model = find_model_family("mlp");
  r.spec.precision = PrecisionPolicy(precision);
  r.spec.expect = expect;
  return r;
}

// A case as a ranks' results file gives it back: written, then read by the
// one results reader.
ResultsCase read_back(const CaseResult& r) {
  return parse_results(gate::test::make_results({case_to_json(r)}), "t.json").cases.at(0);
}

Verdict failed(double ratio) {
  Verdict v;
  v.passed = false;
  v.max_ratio = ratio;
  v.failures = {"loss_rel 3x its bound at step 4", "param_rel_l2 2x its bound"};
  return v;
}

TEST(CaseResult, ACaughtControlConformsAndGivesItsFirstFailureAsTheReason) {
  const CaseResult r = make_case_result(ran(Expect::kFail), failed(3), std::nullopt, std::nullopt, {});
  EXPECT_EQ(r.status, CaseStatus::kFail);
  EXPECT_EQ(r.conforms, true);
  EXPECT_EQ(r.reason, "loss_rel 3x its bound at step 4");
  EXPECT_EQ(r.max_ratio(), 3.0);
}

TEST(CaseResult, ACorrectCaseThatFailsDoesNotConformAnErrorNeverDoesASkipHasNoVerdict) {
  EXPECT_EQ(make_case_result(ran(Expect::kPass), failed(3), std::nullopt, std::nullopt, {}).conforms, false);
  CaseRecord error = ran(Expect::kFail);
  error.status = RunStatus::kError;
  error.reason = "boom";
  const CaseResult e = make_case_result(error, std::nullopt, std::nullopt, std::nullopt, {});
  EXPECT_EQ(e.status, CaseStatus::kError);
  EXPECT_EQ(e.conforms, false);
  EXPECT_EQ(e.reason, "boom");
  CaseRecord skipped = ran(Expect::kPass);
  skipped.status = RunStatus::kSkipped;
  EXPECT_FALSE(make_case_result(skipped, std::nullopt, std::nullopt, std::nullopt, {}).conforms.has_value());
}

TEST(CaseResult, SpeedupAndUtilisationComeFromTheMediansAndTheCeilings) {
  CaseRecord r = ran(Expect::kPass, Precision::kBf16);
  ThroughputRecord t;
  t.samples_per_s = {90, 100, 130};
  t.samples_per_step = 10;
  t.training_flops_per_sample = 1e9;
  r.throughput = t;
  const CaseResult with = make_case_result(r, Verdict{}, std::nullopt, 50.0, {{"fp32", 1e12}, {"bf16", 4e12}});
  ASSERT_TRUE(with.throughput);
  EXPECT_DOUBLE_EQ(with.throughput->median, 100);
  EXPECT_DOUBLE_EQ(with.throughput->step_time_ms, 100);  // 10 samples at 100/s
  EXPECT_EQ(with.throughput->speedup_vs_fp32, 2.0);
  EXPECT_EQ(with.throughput->model_flop_utilization, 100 * 1e9 / 4e12);
  EXPECT_EQ(with.throughput->ceiling_speedup_vs_fp32, 4.0);
  const CaseResult without = make_case_result(r, Verdict{}, std::nullopt, std::nullopt, {{"fp32", 1e12}});
  EXPECT_FALSE(without.throughput->speedup_vs_fp32);
  EXPECT_FALSE(without.throughput->model_flop_utilization) << "no bf16 ceiling measured";
}

TEST(CaseResult, TheSummaryCountsTheSameFromTheResultAndFromItsJson) {
  for (const CaseResult& r : {make_case_result(ran(Expect::kFail), failed(3), std::nullopt, std::nullopt, {}),
                              make_case_result(ran(Expect::kPass), failed(INFINITY), std::nullopt, std::nullopt, {}),
                              make_case_result(ran(Expect::kPass), Verdict{}, std::nullopt, std::nullopt, {})}) {
    const CaseTally typed = tally_of(r), read = tally_of(read_back(r));
    EXPECT_EQ(typed.id, read.id);
    EXPECT_EQ(typed.status, read.status);
    EXPECT_EQ(typed.control, read.control);
    EXPECT_EQ(typed.conforms, read.conforms);
    EXPECT_EQ(typed.max_ratio, read.max_ratio);
  }
}

}  // namespace
}  // namespace ampbench
