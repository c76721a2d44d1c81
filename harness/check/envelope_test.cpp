#include "check/envelope.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ampbench {
namespace {

// A baseline with loss 1 at every step, parameters moved from 0 to 1, and
// the given replicas at fp16.
CaseRecord baseline_with(const std::vector<ReplicaRecord>& replicas) {
  CaseRecord b;
  b.loss = {1.0, 1.0, 1.0};
  b.initial_params = {0.0f, 0.0f};
  b.final_params = {1.0f, 1.0f};
  b.optimizer_state = {1.0f};
  ReplicaSet set;
  set.precisions = {Precision::kFp16};
  set.replicas = replicas;
  b.replica_sets.push_back(set);
  return b;
}

TEST(Envelope, TheLossEnvelopeIsARunningMaximumThroughTheLastStep) {
  // Deviations 0, 0.5, 0.1: a correct run may be as far off at the last step
  // as it ever was before it.
  const auto e = envelope_for(baseline_with({{{1.0, 1.5, 1.1}, {1.0f, 1.0f}, {1.0f}}}), Precision::kFp16);
  ASSERT_TRUE(e);
  ASSERT_EQ(e->loss_rel.size(), 3u);
  EXPECT_DOUBLE_EQ(e->loss_rel[0], 0.0);
  EXPECT_DOUBLE_EQ(e->loss_rel[1], 0.5);
  EXPECT_DOUBLE_EQ(e->loss_rel[2], 0.5);
}

TEST(Envelope, EachMetricIsTheLargestOverTheReplicasNotTheLastOne) {
  // The first replica is the farther one in parameters and in loss.
  const ReplicaRecord far{{1.0, 1.4, 1.0}, {1.3f, 1.0f}, {1.2f}};
  const ReplicaRecord near{{1.0, 1.1, 1.0}, {1.1f, 1.0f}, {1.1f}};
  const auto e = envelope_for(baseline_with({far, near}), Precision::kFp16);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->replicas, 2);
  EXPECT_NEAR(e->param_rel, 0.3 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(e->optimizer_state_rel, 0.2, 1e-6);
  EXPECT_NEAR(e->loss_rel[1], 0.4, 1e-12);
}

TEST(Envelope, NoReplicasForAPrecisionMeansNoEnvelope) {
  EXPECT_FALSE(envelope_for(baseline_with({}), Precision::kFp16));
  EXPECT_FALSE(envelope_for(baseline_with({{{1.0, 1.0, 1.0}, {1.0f, 1.0f}, {1.0f}}}), Precision::kBf16));
}

TEST(Envelope, TheProbeEnvelopeIsRelativeToHowFarTheFp32OutputsMoved) {
  CaseRecord b = baseline_with({{{1.0, 1.0, 1.0}, {1.0f, 1.0f}, {1.0f}, {2.0f, 4.5f}},
                                {{1.0, 1.0, 1.0}, {1.0f, 1.0f}, {1.0f}, {2.0f, 4.1f}}});
  b.initial_probe = {2.0f, 2.0f};
  b.final_probe = {2.0f, 4.0f};  // moved by 2
  const auto e = envelope_for(b, Precision::kFp16);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->probe_rel, 0.25, 1e-6);  // 0.5 of a move of 2
  b.initial_probe.clear();
  b.final_probe.clear();
  EXPECT_DOUBLE_EQ(envelope_for(b, Precision::kFp16)->probe_rel, 0.0);  // no probe, no probe envelope
}

}  // namespace
}  // namespace ampbench
