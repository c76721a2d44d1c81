// Delayed scaling's update rule (delayed_scaling.h) on hand-computed values:
// scale = fp8_max / amax / 2^margin, amax the history's max or, with
// most_recent, the amax this very step recorded, the scale kept where amax
// is 0, and the history rolled after each update.
#include "fp8/delayed_scaling.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ampbench::fp8 {
namespace {

constexpr float kE4m3Max = 448.0f;

DelayedTensorState fresh(int64_t history_len) { return DelayedTensorState::fresh(history_len, c10::Device(c10::kCPU)); }

// One cast of a tensor whose amax is `amax`; returns the scale the cast used.
float cast_amax(DelayedTensorState& s, float amax, const RecipeOptions& recipe) {
  const at::Tensor hp = at::tensor({amax, -amax / 4, 0.0f});
  return delayed_cast(s, hp, hp, at::kFloat8_e4m3fn, recipe).scale.item<float>();
}

TEST(Fp8DelayedScaling, MarginDividesTheScaleByItsPowerOfTwo) {
  for (const int64_t margin : {0, 1, 3}) {
    DelayedTensorState s = fresh(4);
    const RecipeOptions recipe = RecipeOptions(Scaling::kDelayed).margin(margin);
    EXPECT_EQ(cast_amax(s, 2.0f, recipe), 1.0f) << "the first cast uses the initial scale";
    EXPECT_EQ(s.scale.item<float>(), kE4m3Max / 2.0f / std::ldexp(1.0f, static_cast<int>(margin)))
        << "margin " << margin;
  }
}

// most_recent takes the amax of the step just cast, not an earlier one and
// not the history's max: after amaxes 8 then 2, the scale is 448/2.
TEST(Fp8DelayedScaling, MostRecentUsesTheCurrentStepsAmax) {
  const RecipeOptions recent = RecipeOptions(Scaling::kDelayed).amax_compute(AmaxCompute::kMostRecent);
  const RecipeOptions max = RecipeOptions(Scaling::kDelayed);
  DelayedTensorState r = fresh(4);
  DelayedTensorState m = fresh(4);
  for (const float amax : {8.0f, 2.0f}) {
    cast_amax(r, amax, recent);
    cast_amax(m, amax, max);
  }
  EXPECT_EQ(r.scale.item<float>(), kE4m3Max / 2.0f);
  EXPECT_EQ(m.scale.item<float>(), kE4m3Max / 8.0f);
  // The next cast uses exactly that scale.
  EXPECT_EQ(cast_amax(r, 1.0f, recent), kE4m3Max / 2.0f);
}

// The history holds history_len steps: an amax leaves the max once
// history_len later steps were recorded.
TEST(Fp8DelayedScaling, AnAmaxLeavesTheHistoryAfterHistoryLenSteps) {
  const RecipeOptions recipe(Scaling::kDelayed);
  DelayedTensorState s = fresh(3);
  cast_amax(s, 16.0f, recipe);
  cast_amax(s, 1.0f, recipe);
  cast_amax(s, 1.0f, recipe);
  EXPECT_EQ(s.scale.item<float>(), kE4m3Max / 16.0f) << "16 is two steps old: still in a history of 3";
  cast_amax(s, 1.0f, recipe);
  EXPECT_EQ(s.scale.item<float>(), kE4m3Max / 1.0f) << "16 is three steps old: rolled out";
}

TEST(Fp8DelayedScaling, AZeroAmaxKeepsTheScale) {
  const RecipeOptions recipe = RecipeOptions(Scaling::kDelayed).amax_compute(AmaxCompute::kMostRecent);
  DelayedTensorState s = fresh(2);
  cast_amax(s, 4.0f, recipe);
  const float kept = s.scale.item<float>();
  cast_amax(s, 0.0f, recipe);
  EXPECT_EQ(s.scale.item<float>(), kept);
}

}  // namespace
}  // namespace ampbench::fp8
