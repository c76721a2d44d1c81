#include "check/mx_scale_audit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ampbench {
namespace {

using fp8::MxCastTrace;
using fp8::MxScaleMode;
using fp8::RecipeOptions;
using fp8::Scaling;

// Exponents by hand: biased, 127 is 2^0.
TEST(MxScaleAudit, TheFloorRuleByHand) {
  EXPECT_EQ(expected_e8m0(1.0f, MxScaleMode::kFloor), 127 - 8);          // 2^0 / 2^8
  EXPECT_EQ(expected_e8m0(1.9f, MxScaleMode::kFloor), 127 - 8);          // still 2^0
  EXPECT_EQ(expected_e8m0(448.0f, MxScaleMode::kFloor), 127 + 8 - 8);    // 2^8
  EXPECT_EQ(expected_e8m0(0.0f, MxScaleMode::kFloor), 0);                // clamped to 2^-127
  EXPECT_EQ(expected_e8m0(std::ldexp(1.0f, -125), MxScaleMode::kFloor), 0);
  EXPECT_EQ(expected_e8m0(std::numeric_limits<float>::quiet_NaN(), MxScaleMode::kFloor), 255);
  EXPECT_EQ(expected_e8m0(1.9f, MxScaleMode::kCeil), 127 + 1 - 8);
  EXPECT_EQ(expected_e8m0(1.0f, MxScaleMode::kCeil), 127 - 8);           // a power of two: no rounding
}

TEST(MxScaleAudit, TheRceilRuleByHand) {
  EXPECT_EQ(expected_e8m0(448.0f, MxScaleMode::kRceil), 127);            // 448 / 448 = 2^0
  EXPECT_EQ(expected_e8m0(449.0f, MxScaleMode::kRceil), 128);
  EXPECT_EQ(expected_e8m0(1.0f, MxScaleMode::kRceil), 127 - 8);          // ceil(log2(1/448)) = -8
  EXPECT_EQ(expected_e8m0(std::numeric_limits<float>::infinity(), MxScaleMode::kRceil), 254);
}

// One cast of 2 rows and 64 columns (2 blocks a row).
MxCastTrace cast(std::vector<uint8_t> exponent) {
  return {2, {1.0f, 3.0f, 0.0f, 448.0f}, std::move(exponent)};
}

std::vector<MxLayerCasts> one_layer(MxCastTrace c, int operand) {
  MxLayerCasts layer;
  layer[operand].push_back(std::move(c));
  return {layer};
}

TEST(MxScaleAudit, TheCorrectExponentsPass) {
  EXPECT_FALSE(first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8), one_layer(cast({119, 120, 0, 127}), 2)));
}

TEST(MxScaleAudit, ScalesRoundedUpAreCaughtAtTheFirstBlockThatIsNoPowerOfTwo) {
  const auto m = first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8), one_layer(cast({119, 121, 0, 127}), 1));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->operand, 1);
  EXPECT_NE(m->what.find("block 1 of row 0"), std::string::npos) << m->what;
  EXPECT_NE(m->what.find("exponent 121, the rule gives 120"), std::string::npos) << m->what;
}

TEST(MxScaleAudit, BlocksOfSixteenAreCaughtByTheirCount) {
  const auto m = first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8),
                                         one_layer(cast({119, 119, 120, 120, 0, 0, 127, 127}), 0));
  ASSERT_TRUE(m);
  EXPECT_NE(m->what.find("4 exponents a row, where 32-value blocks give 2"), std::string::npos) << m->what;
}

TEST(MxScaleAudit, AWrappedExponentOfAnAllZeroBlockIsCaught) {
  const auto m = first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8), one_layer(cast({119, 120, 248, 127}), 2));
  ASSERT_TRUE(m);
  EXPECT_NE(m->what.find("exponent 248, the rule gives 0"), std::string::npos) << m->what;
}

TEST(MxScaleAudit, TheRecipesRuleIsTheOneAudited) {
  // rceil's exponents fail the floor rule and pass their own: 500 is past
  // 448, so rceil gives 2^1 where floor gives 2^0 (and clamps 500 to 448).
  const MxCastTrace rceil{2, {1.0f, 3.0f, 0.0f, 500.0f}, {119, 120, 0, 128}};
  EXPECT_FALSE(first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8).mx_scale_mode(MxScaleMode::kRceil),
                                       one_layer(rceil, 0)));
  EXPECT_TRUE(first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8), one_layer(rceil, 0)));
  // A ceil recipe (the mistake) is audited by the floor rule it should follow.
  EXPECT_TRUE(first_mx_scale_mismatch(RecipeOptions(Scaling::kMxfp8).mx_scale_mode(MxScaleMode::kCeil),
                                      one_layer(cast({119, 121, 0, 127}), 0)));
}

}  // namespace
}  // namespace ampbench
