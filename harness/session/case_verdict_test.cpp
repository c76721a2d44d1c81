// The fresh-seed rule as the session applies it (case_verdict.h): a
// borderline case is re-decided by running it and its fp32 baseline at the
// fresh seed. Its recorded distance must be the one an independent run of
// both at that seed gives, which neither a run at the suite's seed nor a
// baseline left at the suite's seed reproduces.
#include <gtest/gtest.h>

#include "runner/tiny_case_test_util.h"
#include "session/case_verdict.h"

namespace ampbench {
namespace {

constexpr std::uint64_t kSuiteSeed = 3;

struct Pair {
  CaseSpec baseline;
  CaseSpec mixed;
};

Pair bf16_pair() {
  Pair p{test::tiny_mlp_case("plain", Precision::kFp32, optim::Kind::kAdamW, 6),
         test::tiny_mlp_case("plain", Precision::kBf16, optim::Kind::kAdamW, 6)};
  p.baseline.id = "plain/mlp/fp32/adamw";
  p.baseline.seed = kSuiteSeed;
  p.baseline.envelope_precisions = {Precision::kBf16};
  p.mixed.id = "plain/mlp/bf16/adamw";
  p.mixed.seed = kSuiteSeed;
  p.mixed.baseline_id = p.baseline.id;
  return p;
}

// The largest distance/bound of the bf16 case against its baseline, both run
// here at `seed` (and the baseline at `baseline_seed`), without the rule.
double distance_at(const Runner& runner, std::uint64_t seed, std::uint64_t baseline_seed) {
  Pair p = bf16_pair();
  p.baseline.seed = baseline_seed;
  p.baseline.id += "@" + std::to_string(baseline_seed);
  p.mixed.seed = seed;
  p.mixed.id += "@" + std::to_string(seed);
  p.mixed.baseline_id = p.baseline.id;
  const CaseRecord base = runner.run(p.baseline);
  const CaseRecord rec = runner.run(p.mixed);
  EXPECT_EQ(base.status, RunStatus::kRan) << base.reason;
  EXPECT_EQ(rec.status, RunStatus::kRan) << rec.reason;
  return check_against_baseline(rec, base, runner).max_ratio;
}

// A verdict the rule calls borderline: one metric 1.5x over its bound.
Verdict borderline_verdict() {
  Verdict v;
  v.passed = false;
  MetricCheck m;
  m.name = "loss_rel";
  m.max_ratio = 1.5;
  v.checks.push_back(m);
  v.max_ratio = 1.5;
  v.failures.push_back("loss_rel: 1.5x its bound");
  return v;
}

TEST(FreshSeedConfirmation, RunsTheCaseAndItsBaselineAtTheFreshSeed) {
  const Runner runner;
  const Pair p = bf16_pair();
  Verdict v = borderline_verdict();
  ASSERT_GE(confirm_borderline(v, p.mixed, p.baseline, runner, ConfirmationRule{}), 1);
  const std::uint64_t fresh = confirmation_seed(kSuiteSeed, 1);
  ASSERT_FALSE(v.confirmations.empty());
  EXPECT_EQ(v.confirmations[0].seed, fresh);

  const double at_fresh = distance_at(runner, fresh, fresh);
  const double at_suite_seed = distance_at(runner, kSuiteSeed, kSuiteSeed);
  const double baseline_not_reseeded = distance_at(runner, fresh, kSuiteSeed);
  // The three differ, so the recorded distance tells which seeds ran.
  ASSERT_NE(at_fresh, at_suite_seed);
  ASSERT_NE(at_fresh, baseline_not_reseeded);
  EXPECT_DOUBLE_EQ(v.confirmations[0].max_ratio, at_fresh)
      << "suite seed: " << at_suite_seed << ", baseline at the suite seed: " << baseline_not_reseeded;
}

TEST(FreshSeedConfirmation, ADecidedVerdictRunsNothing) {
  const Runner runner;
  const Pair p = bf16_pair();
  Verdict far = borderline_verdict();
  far.max_ratio = far.checks[0].max_ratio = 3.5;  // beyond the grey limit
  EXPECT_EQ(confirm_borderline(far, p.mixed, p.baseline, runner, ConfirmationRule{}), 0);
  EXPECT_TRUE(far.confirmations.empty());
}

}  // namespace
}  // namespace ampbench
