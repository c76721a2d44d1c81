// The non-finite diagnosis names the first step and module, and leaves alone
// what the scaler absorbed.
#include "runner/nonfinite.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "runner/runner.h"
#include "runner/tiny_case_test_util.h"
#include "spec/workload_traits.h"

namespace ampbench {
namespace {

CaseSpec overflowing(bool scaler) {
  CaseSpec c = test::tiny_mlp_case("plain", Precision::kFp16, optim::Kind::kAdamW, 4);
  c.id = "plain+no_scaler/mlp/fp16/adamw@overflow";
  c.variant = scaler ? Control::kNone : Control::kNoScaler;
  c.lr = 0.003;
  c.scaler_enabled = scaler;
  // The loss gradient times 1e6 overflows float16 in the head backward.
  c.loss_multiplier = 1e6;
  c.baseline_id = "(none)";
  return c;
}

TEST(Nonfinite, TheFirstGradientToGoNonFiniteInBackwardIsTheLastModuleInOrder) {
  const at::Tensor ok = at::ones({2}), bad = at::full({2}, INFINITY);
  EXPECT_EQ(first_nonfinite_gradient({{"model0.fc1.weight", bad}, {"model0.fc2.weight", bad}, {"model0.head.weight", ok}}),
            "model0.fc2");
  EXPECT_EQ(first_nonfinite_gradient({{"model0.fc1.weight", ok}, {"model0.head.bias", at::full({1}, NAN)}}), "model0.head");
  EXPECT_EQ(first_nonfinite_gradient({{"model0.fc1.weight", ok}, {"model0.head.weight", at::Tensor()}}), "");
}

TEST(Nonfinite, AnFp16OverflowWithoutAScalerIsNamedAtItsStepAndModule) {
  const CaseRecord rec = Runner().run(overflowing(/*scaler=*/false));
  ASSERT_EQ(rec.status, RunStatus::kRan) << rec.reason;
  ASSERT_TRUE(rec.nonfinite) << "the run left non-finite values but no diagnosis";
  EXPECT_EQ(rec.nonfinite->step, 0);
  EXPECT_EQ(rec.nonfinite->where, "backward: the gradient of model0.head");
}

TEST(Nonfinite, WhatTheScalerAbsorbsIsNotDiagnosed) {
  const CaseRecord rec = Runner().run(overflowing(/*scaler=*/true));
  ASSERT_EQ(rec.status, RunStatus::kRan) << rec.reason;
  EXPECT_FALSE(has_unabsorbed_nonfinite(rec));
  EXPECT_FALSE(rec.nonfinite);
}

}  // namespace
}  // namespace ampbench
