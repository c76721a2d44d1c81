#include "check/rowwise_scale_audit.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "fp8/fp8_linear.h"

namespace ampbench {
namespace {

using fp8::RowwiseCastTrace;

// Scales by hand: 448 / amax, rounded down to a power of two.
TEST(RowwiseScaleAudit, TheRuleByHand) {
  EXPECT_EQ(expected_rowwise_scale(448.0f), 1.0f);
  EXPECT_EQ(expected_rowwise_scale(1.0f), 256.0f);    // 448 -> 256
  EXPECT_EQ(expected_rowwise_scale(3.0f), 128.0f);    // 149.3 -> 128
  EXPECT_EQ(expected_rowwise_scale(0.5f), 512.0f);    // 896 -> 512
  EXPECT_EQ(expected_rowwise_scale(0.0f), std::ldexp(1.0f, 48));  // 448e12 -> 2^48 (amax floored at 1e-12)
  EXPECT_EQ(expected_rowwise_scale(std::numeric_limits<float>::infinity()), 0.0f);
}

std::vector<RowwiseLayerCasts> one_layer(RowwiseCastTrace c, int operand) {
  RowwiseLayerCasts layer;
  layer[operand].push_back(std::move(c));
  return {layer};
}

TEST(RowwiseScaleAudit, TheCorrectScalesPass) {
  EXPECT_FALSE(first_rowwise_scale_mismatch(one_layer({{1.0f, 3.0f, 448.0f}, {256.0f, 128.0f, 1.0f}}, 2)));
}

TEST(RowwiseScaleAudit, UnroundedScalesAreCaughtAtTheFirstRowThatIsNoPowerOfTwo) {
  const float unrounded = 448.0f / 3.0f;
  const auto m = first_rowwise_scale_mismatch(one_layer({{1.0f, 3.0f, 448.0f}, {256.0f, unrounded, 1.0f}}, 1));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->operand, 1);
  EXPECT_NE(m->what.find("row 1"), std::string::npos) << m->what;
}

TEST(RowwiseScaleAudit, ScalesRoundedUpAreCaught) {
  EXPECT_TRUE(first_rowwise_scale_mismatch(one_layer({{3.0f}, {256.0f}}, 0)));
}

TEST(RowwiseScaleAudit, ScalesAlongTheOtherDimensionAreCaughtByTheirCount) {
  const auto m = first_rowwise_scale_mismatch(one_layer({{1.0f, 3.0f, 448.0f}, {256.0f, 128.0f}}, 0));
  ASSERT_TRUE(m);
  EXPECT_NE(m->what.find("2 scales for 3 rows"), std::string::npos) << m->what;
}

// The harness's own rowwise Linear, logged as a recorded run logs it: its
// casts (two forward, four backward) follow the rule, and the same Linear
// with unrounded scales does not.
std::vector<RowwiseLayerCasts> logged_linear(bool pow2) {
  torch::manual_seed(0);
  fp8::Fp8LinearState state(fp8::RecipeOptions(fp8::Scaling::kRowwise).pow2_scales(pow2), torch::kCPU);
  state.mx_log.enabled = true;
  const at::Tensor x = torch::randn({16, 32}) * torch::logspace(-3, 3, 32);
  const at::Tensor w = torch::randn({48, 32}).requires_grad_();
  fp8::fp8_linear(x, w, at::Tensor(), state).mul(torch::randn({16, 48})).sum().backward();
  RowwiseLayerCasts layer;
  for (int k = 0; k < 3; ++k) {
    const c10::List<at::Tensor>& log = state.mx_log.casts[k];
    for (size_t i = 0; i + 1 < log.size(); i += 2) {
      const at::Tensor a = log.get(i).contiguous(), s = log.get(i + 1).contiguous();
      layer[k].push_back({{a.data_ptr<float>(), a.data_ptr<float>() + a.numel()},
                          {s.data_ptr<float>(), s.data_ptr<float>() + s.numel()}});
    }
  }
  return {layer};
}

TEST(RowwiseScaleAudit, TheRowwiseLinearsOwnCastsPassAndItsUnroundedOnesFail) {
  const auto correct = logged_linear(true);
  EXPECT_EQ(correct[0][0].size(), 2u);  // the input: forward along K, backward along M
  EXPECT_EQ(correct[0][1].size(), 2u);
  EXPECT_EQ(correct[0][2].size(), 2u);
  EXPECT_EQ(correct[0][0][0].row_amax.size(), 16u);
  EXPECT_EQ(correct[0][0][1].row_amax.size(), 32u);
  EXPECT_FALSE(first_rowwise_scale_mismatch(correct));
  const auto faulted = first_rowwise_scale_mismatch(logged_linear(false));
  ASSERT_TRUE(faulted);
  EXPECT_EQ(faulted->operand, 0);
  EXPECT_EQ(faulted->cast, 0u);
}

}  // namespace
}  // namespace ampbench
