// The rank-agreement rule as a pure function (the collective around it is
// covered by distributed_test.cpp's rank_disagreement control).
#include "distributed/rank_agreement.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ampbench::distributed {
namespace {

RankTrajectory two_steps(double scale1, bool skipped1, float param) {
  RankTrajectory r;
  r.scale = {65536, scale1};
  r.skipped = {false, skipped1};
  r.final_params = {1.0f, -2.0f, param};
  return r;
}

TEST(RankAgreement, AgreeingRanksPass) {
  const auto fp = rank_fingerprint(two_steps(65536, false, 3));
  EXPECT_FALSE(first_rank_disagreement({fp, fp}, 2));
  EXPECT_FALSE(first_rank_disagreement({fp, fp, fp, fp}, 2));
}

TEST(RankAgreement, TheLastOfTwoRanksIsCompared) {
  const auto ok = rank_fingerprint(two_steps(65536, false, 3));
  const auto alone = rank_fingerprint(two_steps(32768, true, 3));
  const auto why = first_rank_disagreement({ok, alone}, 2);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "ranks disagree: rank 1 vs rank 0 on the loss scale after step 1 (32768 vs 65536)");
}

TEST(RankAgreement, TheLastOfThreeRanksIsCompared) {
  const auto ok = rank_fingerprint(two_steps(65536, false, 3));
  const auto drifted = rank_fingerprint(two_steps(65536, false, 3.5f));
  const auto why = first_rank_disagreement({ok, ok, drifted}, 2);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("rank 2 vs rank 0 on the final parameters"), std::string::npos) << *why;
}

TEST(RankAgreement, NamesTheSkippedFlagWhenOnlyItDiffers) {
  RankTrajectory a = two_steps(65536, false, 3), b = a;
  b.skipped[1] = true;
  const auto why = first_rank_disagreement({rank_fingerprint(a), rank_fingerprint(b)}, 2);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("skipped flag of step 1"), std::string::npos) << *why;
}

TEST(RankAgreement, NanParametersOnEveryRankAgreeButNotWithAFiniteRank) {
  const auto nan = rank_fingerprint(two_steps(65536, false, NAN));
  EXPECT_FALSE(first_rank_disagreement({nan, nan}, 2));
  EXPECT_TRUE(first_rank_disagreement({nan, rank_fingerprint(two_steps(65536, false, 3))}, 2));
}

TEST(RankAgreement, DifferentTrajectoryLengthsDisagree) {
  RankTrajectory longer = two_steps(65536, false, 3);
  longer.scale.push_back(65536);
  longer.skipped.push_back(false);
  EXPECT_TRUE(first_rank_disagreement({rank_fingerprint(two_steps(65536, false, 3)), rank_fingerprint(longer)}, 2));
}

}  // namespace
}  // namespace ampbench::distributed
