#include "check/checker.h"

#include <gtest/gtest.h>

#include <cmath>

#include "check/check_test_util.h"

namespace ampbench {
namespace {

using test::baseline;
using test::record;

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

TEST(Checker, Tf32IsHeldToItsOwnUnitRoundoff) {
  // u = 2^-11: a loss 1e-4 off passes (as for fp16), one 5% off fails.
  const Verdict close = check_case(record(Precision::kTf32, {2.0002, 1.5001, 1.0001, 0.8001}, {1, 2, 3, 4.001f}),
                                   baseline());
  EXPECT_TRUE(close.passed) << (close.failures.empty() ? "" : close.failures.front());
  EXPECT_EQ(close.tolerances.unit_roundoff, std::ldexp(1.0, -11));
  EXPECT_FALSE(check_case(record(Precision::kTf32, {2.0, 1.5, 1.05, 0.8}, {1, 2, 3, 4}), baseline()).passed);
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

TEST(Checker, TooManyUnexplainedSkippedStepsFail) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.spec.tolerance.max_extra_skipped_steps = 2;
  rec.skipped = {false, true, true, true};
  rec.scale = {65536, 32768, 16384, 8192};
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.metrics.at("skipped_steps"), 3);
  EXPECT_EQ(v.metrics.at("unexplained_skipped_steps"), 3);
}

TEST(Checker, LeadingCalibrationSkipsAreExplainedUpToTheLimit) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.spec.tolerance.max_extra_skipped_steps = 0;
  rec.skipped = {true, true, true, false};
  rec.scale = {32768, 16384, 8192, 8192};
  rec.spec.tolerance.max_calibration_skips = 3;
  EXPECT_TRUE(check_case(rec, baseline()).passed);
  // A scaler that never stops skipping is not calibrating.
  rec.spec.tolerance.max_calibration_skips = 2;
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.metrics.at("unexplained_skipped_steps"), 1);
}

TEST(UnexplainedSkips, EachGrowthExplainsOneLaterBackoff) {
  // Grows at steps 1 and 3 without an overflow between: two levels above the
  // last safe one, so two backoffs (4, 5) are explained, a third (6) is not.
  const std::vector<bool> skipped = {false, false, false, false, true, true, true};
  const std::vector<double> scale = {8, 16, 16, 32, 16, 8, 4};
  EXPECT_EQ(unexplained_skips(skipped, scale, 8, {}, 6), 1);
}

TEST(UnexplainedSkips, TheOverflowRightAfterAGrowthAndTheBaselinesOwnSkipsAreExplained) {
  // Scale grows at step 1, overflows at step 2 (explained); step 4 is an
  // injected inf the baseline skipped too (explained); step 6 is neither.
  const std::vector<bool> skipped = {false, false, true, false, true, false, true};
  const std::vector<double> scale = {8, 16, 8, 8, 4, 4, 2};
  const std::vector<bool> base = {false, false, false, false, true, false, false};
  EXPECT_EQ(unexplained_skips(skipped, scale, 8, base, 6), 1);
  EXPECT_EQ(unexplained_skips(skipped, scale, 8, {}, 6), 2);
}

// A baseline with replicas whose losses deviate by `spread` per step and
// whose parameters land `param_spread` of the update away.
CaseRecord baseline_with_envelope(double spread, float param_spread) {
  CaseRecord b = baseline();
  ReplicaSet set;
  set.precisions = {Precision::kFp16};
  set.unit_roundoff = std::ldexp(1.0, -11);
  ReplicaRecord r;
  for (size_t t = 0; t < b.loss.size(); ++t) r.loss.push_back(b.loss[t] * (1 + spread * static_cast<double>(t)));
  r.final_params = b.final_params;
  r.final_params[3] += param_spread * std::sqrt(30.0f);  // ||p32 - p_init|| = sqrt(30)
  r.optimizer_state = b.optimizer_state;
  set.replicas = {r};
  b.replica_sets = {set};
  return b;
}

TEST(Envelope, IsTheRunningMaximumOfTheReplicasDistance) {
  CaseRecord b = baseline_with_envelope(0.01, 0.5f);
  ReplicaRecord dip = b.replica_sets[0].replicas[0];
  dip.loss[2] = b.loss[2];  // crosses the baseline: not a narrower envelope
  b.replica_sets[0].replicas = {dip};
  const auto e = envelope_for(b, Precision::kFp16);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->replicas, 1);
  ASSERT_EQ(e->loss_rel.size(), 4u);
  EXPECT_NEAR(e->loss_rel[1], 0.01, 1e-12);
  EXPECT_NEAR(e->loss_rel[2], 0.01, 1e-12);
  EXPECT_NEAR(e->loss_rel[3], 0.03, 1e-12);
  EXPECT_NEAR(e->param_rel, 0.5, 1e-6);
  EXPECT_FALSE(envelope_for(b, Precision::kBf16));
}

TEST(Envelope, BoundGrowsWithTheMeasuredSpreadAndKeepsItsFloor) {
  // Loss off by 2% at the last step: far beyond the 8u floor, within c x 3%.
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.816}, {1, 2, 3, 4});
  rec.spec.tolerance.loss_rel_units = 8;
  rec.spec.tolerance.final_loss_ratio_units = 8;
  rec.spec.envelope.c = 2;
  EXPECT_FALSE(check_case(rec, baseline()).passed);
  const Verdict v = check_case(rec, baseline_with_envelope(0.01, 0.0f));
  EXPECT_TRUE(v.passed) << (v.failures.empty() ? "" : v.failures.front());
  ASSERT_TRUE(v.envelope);
  const MetricCheck& loss = v.checks.front();
  EXPECT_EQ(loss.name, "loss_rel");
  EXPECT_DOUBLE_EQ(loss.bound[0], 8 * std::ldexp(1.0, -11));  // envelope 0: the floor
  EXPECT_NEAR(loss.bound[3], 2 * 0.03, 1e-12);
  EXPECT_NEAR(v.max_ratio, 0.02 / 0.06, 1e-9);
  EXPECT_EQ(loss.peak_step, 3);
  // Twice as far off as c x the envelope allows: fails, naming the step.
  rec.loss[3] = 0.8 * 1.13;
  const Verdict off = check_case(rec, baseline_with_envelope(0.01, 0.0f));
  EXPECT_FALSE(off.passed);
  ASSERT_TRUE(off.first_crossing_step);
  EXPECT_EQ(*off.first_crossing_step, 3);
  EXPECT_GT(off.max_ratio, 2.0);
}

TEST(Envelope, ParametersAreHeldToCTimesTheReplicasSpread) {
  const CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4 + 0.3f * std::sqrt(30.0f)});
  CaseRecord r = rec;
  r.spec.envelope.c = 2;
  EXPECT_TRUE(check_case(r, baseline_with_envelope(0, 0.2f)).passed);   // 0.3 <= 2 x 0.2
  EXPECT_FALSE(check_case(r, baseline_with_envelope(0, 0.1f)).passed);  // 0.3 > 2 x 0.1
}

TEST(Envelope, ProbeOutputsAreHeldToCTimesTheReplicasSpreadBesideTheParameters) {
  CaseRecord base = baseline_with_envelope(0, 0.2f);
  base.initial_probe = {0, 0};
  base.final_probe = {3, 4};  // fp32's outputs moved by 5
  base.replica_sets[0].replicas[0].final_probe = {3, 4.5f};  // 0.1 of that
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.spec.envelope.c = 2;
  rec.final_probe = {3, 4.9f};  // 0.18 <= 2 x 0.1
  const Verdict near = check_case(rec, base);
  EXPECT_TRUE(near.passed) << (near.failures.empty() ? "" : near.failures.front());
  EXPECT_NEAR(near.metrics.at("probe_output_rel_l2"), 0.18, 1e-6);
  EXPECT_EQ(near.checks.back().name, "probe_output_rel_l2");
  rec.final_probe = {3, 5.2f};  // 0.24 > 2 x 0.1, with the parameters equal to fp32's
  const Verdict off = check_case(rec, base);
  EXPECT_FALSE(off.passed);
  ASSERT_EQ(off.failures.size(), 1u);
  EXPECT_NE(off.failures[0].find("probe batch"), std::string::npos) << off.failures[0];
  // A record without a probe (no BatchNorm) is not held to one.
  rec.final_probe.clear();
  EXPECT_EQ(check_case(rec, base).metrics.count("probe_output_rel_l2"), 0u);
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

TEST(ScaleAudit, AMismatchFailsTheCaseAndNamesTheStep) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.spec.scaler.growth_interval = 1;
  rec.scale = {131072, 262144, 262144, 524288};  // step 2 neither grew nor skipped
  const Verdict v = check_case(rec, baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(v.scale_audit_failed);
  EXPECT_EQ(v.metrics.at("scale_mismatch_step"), 2);
  ASSERT_FALSE(v.failures.empty());
  EXPECT_NE(v.failures.back().find("loss scale at step 2"), std::string::npos) << v.failures.back();
  // The same losses with GradScaler's trajectory pass: the audit alone failed it.
  rec.scale = {131072, 262144, 524288, 1048576};
  EXPECT_TRUE(check_case(rec, baseline()).passed);
}

TEST(ScaleAudit, GrowthThatWouldOverflowFloat32KeepsTheScale) {
  // torch.amp's _amp_update_scale_ grows only to a finite float32: from
  // 2^126 a growth of x4 would give 2^128 = inf, so the scale stays.
  CaseSpec spec;
  spec.scaler_enabled = true;
  spec.scaler.init_scale = std::ldexp(1.0, 124);
  spec.scaler.growth_factor = 4;
  spec.scaler.growth_interval = 1;
  const double s126 = std::ldexp(1.0, 126);
  EXPECT_FALSE(first_scale_mismatch(spec, {s126, s126, s126}, {false, false, false}));
  const auto step = first_scale_mismatch(spec, {s126, INFINITY, INFINITY}, {false, false, false});
  ASSERT_TRUE(step);
  EXPECT_EQ(*step, 1);
}

TEST(Checker, ASkippedStepsNonFiniteLossIsNotADeviation) {
  // The forward overflowed float16 at step 2; the scaler skipped that step.
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, INFINITY, 0.8}, {1, 2, 3, 4});
  rec.spec.tolerance.max_extra_skipped_steps = 1;
  rec.skipped = {false, false, true, false};
  rec.scale = {65536, 65536, 32768, 32768};
  rec.spec.scaler.growth_interval = 100;
  const Verdict v = check_case(rec, baseline());
  EXPECT_TRUE(v.passed) << (v.failures.empty() ? "" : v.failures.front());
  EXPECT_EQ(v.checks.front().exempt_steps, std::vector<int>{2});
  EXPECT_EQ(v.metrics.at("exempt_loss_steps"), 1);
  // The same inf on a step the scaler took is a failure.
  rec.skipped = {false, false, false, false};
  rec.scale = {65536, 65536, 65536, 65536};
  const Verdict stepped = check_case(rec, baseline());
  EXPECT_FALSE(stepped.passed);
  ASSERT_TRUE(stepped.first_crossing_step);
  EXPECT_EQ(*stepped.first_crossing_step, 2);
}

TEST(Checker, AnExemptFinalStepMovesTheFinalLossRatioToTheLastComparedStep) {
  CaseRecord rec = record(Precision::kFp16, {2.0, 1.5, 1.0, NAN}, {1, 2, 3, 4});
  rec.spec.tolerance.max_extra_skipped_steps = 1;
  rec.spec.scaler.growth_interval = 100;
  rec.skipped = {false, false, false, true};
  rec.scale = {65536, 65536, 65536, 32768};
  const Verdict v = check_case(rec, baseline());
  EXPECT_TRUE(v.passed) << (v.failures.empty() ? "" : v.failures.front());
  EXPECT_DOUBLE_EQ(v.metrics.at("final_loss_ratio"), 1.0);
}

}  // namespace
}  // namespace ampbench
