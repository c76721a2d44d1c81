#include "check/checker.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ampbench {
namespace {

CaseRecord record(Precision p, std::vector<double> loss, std::vector<float> params) {
  CaseRecord r;
  r.spec.precision = PrecisionPolicy(p);
  r.spec.scaler_enabled = p == Precision::kFp16;
  r.loss = std::move(loss);
  r.scale.assign(r.loss.size(), r.spec.scaler_enabled ? r.spec.scaler.init_scale : 1.0);
  r.skipped.assign(r.loss.size(), false);
  r.initial_params = {0, 0, 0, 0};
  r.final_params = std::move(params);
  r.optimizer_state = {1, 1};
  return r;
}

CaseRecord baseline() {
  CaseRecord b = record(Precision::kFp32, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  b.noise_loss_rel = 0;
  b.noise_param_rel = 0;
  return b;
}

TEST(Checker, AgreementWithinRoundoffPasses) {
  const CaseRecord rec = record(Precision::kFp16, {2.0001, 1.5001, 1.0001, 0.8001}, {1, 2, 3, 4.001f});
  const Verdict v = check_case(rec, baseline());
  EXPECT_TRUE(v.passed) << (v.failures.empty() ? "" : v.failures.front());
  EXPECT_FALSE(v.first_crossing_step);
  EXPECT_EQ(v.deviation_per_step.size(), 4u);
}

TEST(Checker, ReportsTheFirstStepThatCrossedTheTolerance) {
  const CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.2, 1.1}, {1, 2, 3, 4});
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  ASSERT_TRUE(v.first_crossing_step);
  EXPECT_EQ(*v.first_crossing_step, 2);
  EXPECT_NEAR(v.metrics.at("max_loss_rel_dev"), 0.375, 1e-12);
}

TEST(Checker, ParametersThatDidNotLearnFailRelativeToTheFp32Update) {
  // The loss matches but the weights stayed at their initial values.
  const CaseRecord rec = record(Precision::kBf16, {2.0, 1.5, 1.0, 0.8}, {0, 0, 0, 0});
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_NEAR(v.metrics.at("param_rel_l2"), 1.0, 1e-12);
}

TEST(Checker, NonFiniteParametersFail) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, NAN});
  rec.nonfinite_values = 1;
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.metrics.at("nonfinite_values"), 1);
}

TEST(Checker, TooManySkippedStepsFail) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.skipped = {true, true, true, false};
  rec.scale = {32768, 16384, 8192, 8192};
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.metrics.at("skipped_steps"), 3);
}

TEST(Checker, ToleranceIsUnitRoundoffOrMeasuredNoiseWhicheverIsLarger) {
  CaseRecord base = baseline();
  CaseSpec spec;
  spec.precision = PrecisionPolicy(Precision::kBf16);
  spec.tolerance.loss_rel_units = 4;
  spec.tolerance.noise_factor = 10;
  EXPECT_DOUBLE_EQ(resolve_tolerances(spec, base).loss_rel, 4 * std::ldexp(1.0, -8));
  base.noise_loss_rel = 0.01;
  EXPECT_DOUBLE_EQ(resolve_tolerances(spec, base).loss_rel, 0.1);
}

TEST(ScaleAudit, AcceptsGradScalerTrajectory) {
  CaseSpec spec;
  spec.scaler_enabled = true;
  spec.scaler.init_scale = 128;
  spec.scaler.growth_interval = 1;
  // 128 -> grow, grow, back off (inf), grow: exactly 128 * 2^3 * 0.5^1.
  EXPECT_FALSE(first_scale_mismatch(spec, {256, 512, 256, 512}, {false, false, true, false}));
}

TEST(ScaleAudit, FlagsAScaleThatIsNeverUpdated) {
  CaseSpec spec;
  spec.scaler_enabled = true;
  spec.scaler.growth_interval = 2;
  const auto step = first_scale_mismatch(spec, {65536, 65536, 65536}, {false, false, false});
  ASSERT_TRUE(step);
  EXPECT_EQ(*step, 1);
}

TEST(ScaleAudit, FlagsTwoUpdatesPerIteration) {
  CaseSpec spec;
  spec.scaler_enabled = true;
  spec.scaler.growth_interval = 2;
  // Two updates per iteration double the scale every iteration.
  const auto step = first_scale_mismatch(spec, {131072, 262144}, {false, false});
  ASSERT_TRUE(step);
  EXPECT_EQ(*step, 0);
}

}  // namespace
}  // namespace ampbench
