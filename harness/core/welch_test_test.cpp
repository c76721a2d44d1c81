// The convergence check's statistics against scipy (the expected values were
// printed by the venv's scipy: stats.t.sf, special.betainc, stats.ttest_ind
// with equal_var=False, alternative="greater").
#include "core/welch_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ampbench {
namespace {

TEST(WelchTest, OlympicTrimDropsTheBestAndTheWorst) {
  EXPECT_EQ(olympic_trim({5, 1, 9, 3, 7}), (std::vector<double>{3, 5, 7}));
  EXPECT_EQ(olympic_trim({5, 1, 9, 3, 7}, 2), (std::vector<double>{5}));
  EXPECT_TRUE(olympic_trim({1, 2}).empty());
  // A run that never converged counts as infinitely slow and is the one dropped.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(olympic_trim({inf, 4, 2, 3}), (std::vector<double>{3, 4}));
}

TEST(WelchTest, StudentTTailMatchesScipy) {
  EXPECT_NEAR(student_t_sf(1.5, 7.3), 0.08778154640154305, 1e-12);
  EXPECT_NEAR(student_t_sf(-0.4, 3), 0.6420324230128149, 1e-12);
  EXPECT_NEAR(student_t_sf(12, 2.5), 0.0014181075150391622, 1e-13);
  EXPECT_DOUBLE_EQ(student_t_sf(0, 9), 0.5);
  EXPECT_EQ(student_t_sf(std::numeric_limits<double>::infinity(), 4), 0.0);
  EXPECT_THROW(student_t_sf(1, 0), std::invalid_argument);
}

TEST(WelchTest, IncompleteBetaMatchesScipyOnBothSidesOfItsSwitch) {
  EXPECT_NEAR(incomplete_beta(2.5, 0.5, 0.3), 0.018927124071945658, 1e-13);
  EXPECT_NEAR(incomplete_beta(30, 0.5, 0.97), 0.17821754497024148, 1e-12);
  EXPECT_THROW(incomplete_beta(1, 1, 1.5), std::invalid_argument);
}

TEST(WelchTest, OneSidedWelchMatchesScipyInBothDirections) {
  const std::vector<double> slow = {1200, 1300, 1100, 1500, 1400, 1250, 1350, 1300};
  const std::vector<double> fast = {1000, 1100, 1050, 1150, 1000, 1200, 1100, 1050};
  const WelchTest greater = welch_greater(slow, fast);
  EXPECT_NEAR(greater.t, 4.379891002086308, 1e-12);
  EXPECT_NEAR(greater.df, 11.16991303097822, 1e-10);
  EXPECT_NEAR(greater.p, 0.0005301703179106365, 1e-12);
  EXPECT_NEAR(welch_greater(fast, slow).p, 0.9994698296820894, 1e-12);
}

TEST(WelchTest, SamplesThatDoNotVaryGiveNoEvidenceOrCertainty) {
  EXPECT_DOUBLE_EQ(welch_greater({3, 3, 3}, {3, 3}).p, 0.5);
  EXPECT_EQ(welch_greater({4, 4, 4}, {3, 3}).p, 0.0);
  EXPECT_EQ(welch_greater({2, 2}, {3, 3}).p, 1.0);
  EXPECT_THROW(welch_greater({1}, {1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench
