// What a recorded FP8 case counts of its casts (DelayedTensorState's range
// counts): values past the range, non-zero values flushed to zero, values
// cast; nothing unless enabled.
#include "fp8/delayed_scaling.h"

#include <gtest/gtest.h>

namespace ampbench::fp8 {
namespace {

DelayedTensorState counting(int64_t history_len) {
  DelayedTensorState s = DelayedTensorState::fresh(history_len, c10::Device(c10::kCPU));
  s.enable_range_counts();
  return s;
}

// Scales from the current amax put every value inside the range: nothing
// saturates, whatever the data; a value 2^-40 of the amax flushes to zero.
TEST(Fp8RangeCounts, TensorwiseNeverSaturatesAndCountsWhatFlushes) {
  DelayedTensorState s = counting(1);
  const RecipeOptions recipe(Scaling::kTensorwise);
  const at::Tensor hp = at::tensor({3.0f, -1.5f, 0.0f, 3.0f * std::ldexp(1.0f, -40), 0.25f});
  tensorwise_cast(s, hp, hp, at::kFloat8_e4m3fn, recipe);
  tensorwise_cast(s, hp * 1000, hp * 1000, at::kFloat8_e4m3fn, recipe);
  EXPECT_EQ(s.saturated.item<int64_t>(), 0);
  EXPECT_EQ(s.flushed.item<int64_t>(), 2);  // the tiny value, once per cast; 0 is not counted
  EXPECT_EQ(s.elements.item<int64_t>(), 10);
}

// Delayed scaling casts with the scale of the step before: a tensor 8 times
// larger than anything in its history saturates where it passes the range.
TEST(Fp8RangeCounts, DelayedScalingSaturatesWhereATensorOutgrowsItsHistory) {
  DelayedTensorState s = counting(4);
  const RecipeOptions recipe(Scaling::kDelayed);
  const at::Tensor hp = at::linspace(-1.0, 1.0, 101);
  delayed_cast(s, hp, hp, at::kFloat8_e4m3fn, recipe);  // scale 1: records amax 1
  EXPECT_EQ(s.saturated.item<int64_t>(), 0);
  const at::Tensor scale = s.scale.clone();  // 448 / 1
  delayed_cast(s, hp * 8, hp * 8, at::kFloat8_e4m3fn, recipe);
  // Past the rounding boundary above 448 (464): what the clamp really changes.
  const int64_t expected = (hp * 8).mul(scale).abs().ge(464.0).sum().item<int64_t>();
  EXPECT_GT(expected, 50);
  EXPECT_EQ(s.saturated.item<int64_t>(), expected);
  EXPECT_EQ(s.elements.item<int64_t>(), 202);
}

TEST(Fp8RangeCounts, NothingIsCountedUnlessEnabled) {
  DelayedTensorState s = DelayedTensorState::fresh(1, c10::Device(c10::kCPU));
  const at::Tensor hp = at::ones({4});
  delayed_cast(s, hp, hp, at::kFloat8_e4m3fn, RecipeOptions(Scaling::kDelayed));
  EXPECT_FALSE(s.saturated.defined());
}

}  // namespace
}  // namespace ampbench::fp8
