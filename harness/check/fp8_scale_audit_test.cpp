#include "check/fp8_scale_audit.h"

#include <gtest/gtest.h>

#include "check/check_test_util.h"
#include "check/checker.h"

namespace ampbench {
namespace {

using fp8::AmaxCompute;
using fp8::CastTrace;
using fp8::RecipeOptions;
using fp8::Scaling;

// One layer whose three operands saw the same casts.
std::vector<Fp8LayerCasts> layer(const std::vector<CastTrace>& input, const std::vector<CastTrace>& weight,
                                 const std::vector<CastTrace>& grad) {
  return {Fp8LayerCasts{input, weight, grad}};
}

TEST(Fp8ScaleAudit, TensorwiseScalesFromTheCurrentAmaxPass) {
  // 448 / amax for e4m3, 57344 / amax for the e5m2 output gradient.
  const auto casts = layer({{2, 224}, {4, 112}}, {{0.5, 896}}, {{2, 28672}, {0.25, 229376}});
  EXPECT_FALSE(first_fp8_scale_mismatch(RecipeOptions(Scaling::kTensorwise), casts));
}

TEST(Fp8ScaleAudit, TensorwiseFrozenScaleIsTheSecondCast) {
  const auto m = first_fp8_scale_mismatch(RecipeOptions(Scaling::kTensorwise), layer({{2, 224}, {4, 224}}, {}, {}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->operand, 0);
  EXPECT_EQ(m->cast, 1u);
  EXPECT_DOUBLE_EQ(m->used, 224);
  EXPECT_DOUBLE_EQ(m->expected, 112);
}

TEST(Fp8ScaleAudit, GradientsScaledForE4m3AreCaught) {
  const auto m = first_fp8_scale_mismatch(RecipeOptions(Scaling::kTensorwise), layer({}, {}, {{2, 224}}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->operand, 2);
  EXPECT_DOUBLE_EQ(m->expected, 28672);
}

TEST(Fp8ScaleAudit, ScalesWithinFloatRoundingPass) {
  EXPECT_FALSE(first_fp8_scale_mismatch(RecipeOptions(Scaling::kTensorwise), layer({{2, 224 * (1 + 1e-8)}}, {}, {})));
  EXPECT_TRUE(first_fp8_scale_mismatch(RecipeOptions(Scaling::kTensorwise), layer({{2, 224 * (1 + 1e-4)}}, {}, {})));
}

// Amaxes 2, 4, 1, 1 with a history of 2: each cast uses what the casts
// before it left, 1 before the first.
const std::vector<CastTrace> kRolled = {{2, 1}, {4, 224}, {1, 112}, {1, 112}, {1, 448}};

TEST(Fp8ScaleAudit, DelayedScalingFromTheHistoryMaxPasses) {
  const RecipeOptions delayed = RecipeOptions(Scaling::kDelayed).history_len(2);
  EXPECT_FALSE(first_fp8_scale_mismatch(delayed, layer(kRolled, kRolled, {})));
}

TEST(Fp8ScaleAudit, DelayedHistoryThatDoesNotRollIsCaught) {
  // Without the roll only the newest amax is seen: 448 at the fourth cast.
  const std::vector<CastTrace> unrolled = {{2, 1}, {4, 224}, {1, 112}, {1, 448}};
  const auto m = first_fp8_scale_mismatch(RecipeOptions(Scaling::kDelayed).history_len(2), layer(unrolled, {}, {}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->cast, 3u);
  EXPECT_DOUBLE_EQ(m->expected, 112);
}

TEST(Fp8ScaleAudit, DelayedMarginAndMostRecent) {
  const RecipeOptions recipe = RecipeOptions(Scaling::kDelayed).margin(1).amax_compute(AmaxCompute::kMostRecent);
  EXPECT_FALSE(first_fp8_scale_mismatch(recipe, layer({{4, 1}, {2, 56}, {1, 112}}, {}, {})));
}

TEST(Fp8ScaleAudit, DelayedZeroAmaxKeepsTheScale) {
  const RecipeOptions recipe = RecipeOptions(Scaling::kDelayed).amax_compute(AmaxCompute::kMostRecent);
  EXPECT_FALSE(first_fp8_scale_mismatch(recipe, layer({{0, 1}, {2, 1}, {0, 224}, {1, 224}}, {}, {})));
}

TEST(Fp8ScaleAudit, RowwiseIsNotAudited) {
  EXPECT_FALSE(first_fp8_scale_mismatch(RecipeOptions(Scaling::kRowwise), layer({{2, 7}}, {}, {})));
}

TEST(Fp8ScaleAudit, TheCheckerFailsTheCaseNamingLayerAndOperand) {
  CaseRecord rec = test::record(Precision::kFp16, {2.0, 1.5, 1.0, 0.8}, {1, 2, 3, 4});
  rec.spec.fp8 = Fp8Settings{RecipeOptions(Scaling::kTensorwise), {}};
  rec.fp8_layers = {{"fc1", 32, 64, false, "first layer"}, {"fc2", 64, 64, true, ""}};
  rec.fp8_casts = layer({{2, 224}}, {{1, 448}}, {{2, 224}});
  const Verdict v = check_case(rec, test::baseline());
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(v.scale_audit_failed);
  ASSERT_FALSE(v.failures.empty());
  EXPECT_NE(v.failures.back().find("fc2's output gradient at cast 0"), std::string::npos) << v.failures.back();
}

}  // namespace
}  // namespace ampbench
