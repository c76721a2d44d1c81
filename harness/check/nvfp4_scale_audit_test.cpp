#include "check/nvfp4_scale_audit.h"

#include <gtest/gtest.h>

namespace ampbench {
namespace {

using fp8::Nvfp4CastTrace;
using fp8::RecipeOptions;
using fp8::Scaling;

const RecipeOptions kNv(Scaling::kNvfp4);

// The rule by hand: the tensor's amax block gets 448; the floor is 2^-6.
TEST(Nvfp4Audit, TheScaleRuleByHand) {
  EXPECT_EQ(expected_nvfp4_scale(6.0f, 6.0f), 448.0f);
  EXPECT_EQ(expected_nvfp4_scale(3.0f, 6.0f), 224.0f);
  EXPECT_EQ(expected_nvfp4_scale(0.0f, 6.0f), 0.015625f);
  EXPECT_EQ(expected_nvfp4_scale(0.0f, 0.0f), 0.015625f);  // all zero: tensor scale 1
  EXPECT_EQ(expected_nvfp4_scale(1e-3f, 1e-3f), 448.0f);   // small tensors use the whole range
}

// One cast: 1 row, 2 blocks of 16, amaxes 6 and 3 in a tensor of amax 6.
Nvfp4CastTrace cast(std::vector<float> scales, int gemm = 0) {
  return {gemm, 1, {6.0f, 3.0f}, 6.0f, {}, std::move(scales), {}};
}

std::vector<Nvfp4LayerCasts> one_layer(std::vector<Nvfp4CastTrace> casts, int operand) {
  Nvfp4LayerCasts layer;
  layer[operand] = std::move(casts);
  return {layer};
}

TEST(Nvfp4Audit, TheRightScalesPass) {
  EXPECT_FALSE(first_nvfp4_mismatch(kNv, one_layer({cast({448.0f, 224.0f})}, 0)));
}

TEST(Nvfp4Audit, OnlyNvfp4IsAudited) {
  EXPECT_FALSE(first_nvfp4_mismatch(RecipeOptions(Scaling::kMxfp8), one_layer({cast({1.0f, 1.0f})}, 0)));
}

TEST(Nvfp4Audit, AMissingTensorScaleIsCaught) {
  // single-level: amax / 6 in E4M3, 1 and 0.5
  const auto m = first_nvfp4_mismatch(kNv, one_layer({cast({1.0f, 0.5f})}, 1));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->operand, 1);
  EXPECT_NE(m->what.find("the rule gives 448"), std::string::npos) << m->what;
}

TEST(Nvfp4Audit, BlocksOf32AreCaught) {
  const auto m = first_nvfp4_mismatch(kNv, one_layer({cast({448.0f})}, 0));
  ASSERT_TRUE(m);
  EXPECT_NE(m->what.find("1 scales a row, where 16-value blocks give 2"), std::string::npos) << m->what;
}

TEST(Nvfp4Audit, RepeatedDrawsAreCaught) {
  Nvfp4CastTrace a = cast({448.0f, 224.0f}, 1), b = a, c = a;
  a.draws = {0.1f, 0.7f};
  b.draws = {0.3f, 0.2f};
  c.draws = {0.1f, 0.7f};
  EXPECT_FALSE(first_nvfp4_mismatch(kNv, one_layer({a, b}, 2)));
  const auto m = first_nvfp4_mismatch(kNv, one_layer({a, b, c}, 2));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->cast, 2u);
  EXPECT_NE(m->what.find("repeat cast 0"), std::string::npos) << m->what;
  // the same draws for another GEMM's cast are no repeat
  c.gemm = 2;
  EXPECT_FALSE(first_nvfp4_mismatch(kNv, one_layer({a, b, c}, 2)));
}

TEST(Nvfp4Audit, AnUntransformedWeightGradientOperandIsCaught) {
  Nvfp4CastTrace t = cast({448.0f, 224.0f}, 2);
  t.raw_block_amax = {6.0f, 3.0f};  // as cast: untouched
  const auto m = first_nvfp4_mismatch(kNv, one_layer({t}, 0));
  ASSERT_TRUE(m);
  EXPECT_NE(m->what.find("Hadamard"), std::string::npos) << m->what;
  t.raw_block_amax = {9.0f, 3.0f};  // one block's amax moved: transformed
  EXPECT_FALSE(first_nvfp4_mismatch(kNv, one_layer({t}, 0)));
}

}  // namespace
}  // namespace ampbench
