#include "check/confirmation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "check/check_test_util.h"

namespace ampbench {
namespace {

using test::baseline;

// A verdict whose final parameters are `ratio` times their bound away and
// whose loss agrees exactly.
Verdict parameters_off_by(double ratio) {
  const CaseRecord base = baseline();
  const double bound = resolve_tolerances(test::record(Precision::kBf16, {}, {}).spec, base).param_rel;
  // ||p - p32|| / ||p32 - p_init|| with p32 = (1,2,3,4): shift the first coordinate.
  const double norm = std::sqrt(30.0);
  const float shift = static_cast<float>(ratio * bound * norm);
  return check_case(test::record(Precision::kBf16, base.loss, {1 + shift, 2, 3, 4}), base);
}

TEST(Confirmation, OnlyADistanceFailureWithinTheGreyLimitIsBorderline) {
  const ConfirmationRule rule;  // grey limit 3
  EXPECT_FALSE(is_borderline(parameters_off_by(0.5), rule));  // passed
  const Verdict near = parameters_off_by(1.5);
  ASSERT_FALSE(near.passed);
  EXPECT_TRUE(is_borderline(near, rule));
  EXPECT_FALSE(is_borderline(parameters_off_by(4.0), rule));  // beyond the grey limit: decided
  ConfirmationRule off = rule;
  off.seeds = 0;
  EXPECT_FALSE(is_borderline(near, off));
}

// The grey limit is the largest ratio still borderline: exactly at it the
// case gets fresh seeds, the next double above it is decided at once.
TEST(Confirmation, ARatioExactlyAtTheGreyLimitIsBorderline) {
  ConfirmationRule rule;
  rule.grey_limit = 2.5;
  auto failed_at = [](double ratio) {
    Verdict v;
    v.passed = false;
    MetricCheck m;
    m.name = "param_rel_l2";
    m.max_ratio = ratio;
    v.checks.push_back(m);
    v.max_ratio = ratio;
    v.failures.push_back("param_rel_l2 beyond its bound");
    return v;
  };
  EXPECT_TRUE(is_borderline(failed_at(2.5), rule));
  EXPECT_FALSE(is_borderline(failed_at(std::nextafter(2.5, 3.0)), rule));
  EXPECT_TRUE(is_borderline(failed_at(std::nextafter(1.0, 2.0)), rule));
  EXPECT_FALSE(is_borderline(failed_at(1.0), rule)) << "at its bound a case passes; nothing to confirm";
}

TEST(Confirmation, AFailureThatIsNotADistanceIsNeverBorderline) {
  Verdict v = parameters_off_by(1.5);
  v.failures.push_back("3 skipped steps, 3 of them unexplained");
  EXPECT_FALSE(is_borderline(v, {}));
  Verdict audited = parameters_off_by(1.5);
  audited.scale_audit_failed = true;
  EXPECT_FALSE(is_borderline(audited, {}));
}

TEST(Confirmation, AFreshSeedThatPassesClearsTheVerdictAndKeepsWhatItOverruled) {
  Verdict v = parameters_off_by(1.5);
  const std::vector<std::string> failures = v.failures;
  EXPECT_FALSE(add_confirmation(v, {confirmation_seed(1, 1), 1.2, false, "still beyond"}));
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.failures, failures);
  EXPECT_TRUE(add_confirmation(v, {confirmation_seed(1, 2), 0.4, true, ""}));
  EXPECT_TRUE(v.passed);
  EXPECT_TRUE(v.failures.empty());
  EXPECT_EQ(v.overruled_failures, failures);
  ASSERT_EQ(v.confirmations.size(), 2u);
  EXPECT_FALSE(v.confirmations[0].passed);
}

TEST(Confirmation, FreshSeedsDifferFromTheSuitesAndFromEachOther) {
  EXPECT_NE(confirmation_seed(1, 1), confirmation_seed(1, 2));
  EXPECT_NE(confirmation_seed(1, 1), confirmation_seed(2, 1));
  for (std::uint64_t s = 0; s < 100; ++s) EXPECT_GE(confirmation_seed(s, 1), 100u);
}

TEST(Confirmation, EachFreshSeedMultipliesTheFalseAlarmRateByTheSingleSeedRate) {
  ConfirmationRule rule;
  rule.seeds = 0;
  EXPECT_DOUBLE_EQ(per_case_false_alarm(0.01, rule), 0.01);
  rule.seeds = 2;
  EXPECT_NEAR(per_case_false_alarm(0.01, rule), 1e-6, 1e-18);
  // 174 correct cases at 1e-2 each: most runs would fail; at 1e-6, almost none.
  rule.seeds = 0;
  EXPECT_GT(per_run_false_alarm(0.01, rule, 174), 0.8);
  rule.seeds = 2;
  EXPECT_LT(per_run_false_alarm(0.01, rule, 174), 2e-4);
}

}  // namespace
}  // namespace ampbench
