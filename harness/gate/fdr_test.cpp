#include "gate/fdr.h"

#include <gtest/gtest.h>

namespace ampbench::gate {
namespace {

TEST(BenjaminiHochberg, MatchesStatsmodels) {
  // statsmodels.stats.multitest.multipletests([0.01, 0.04, 0.03, 0.005],
  // method="fdr_bh")[1] -> [0.02, 0.04, 0.04, 0.02]
  const std::vector<double> q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_DOUBLE_EQ(q[0], 0.02);
  EXPECT_DOUBLE_EQ(q[1], 0.04);
  EXPECT_DOUBLE_EQ(q[2], 0.04);
  EXPECT_DOUBLE_EQ(q[3], 0.02);
}

TEST(BenjaminiHochberg, OneSmallPAmongManyIsNotEnoughButManyAre) {
  std::vector<double> lone(73, 0.5);
  lone[10] = 0.0078;  // the smallest p of 8 pairs, once among 73 rows
  EXPECT_GT(benjamini_hochberg(lone)[10], 0.05);
  std::vector<double> many(73, 0.5);
  for (std::size_t i = 0; i < 30; ++i) many[i] = 0.0078;  // a slowdown that moves 30 rows
  EXPECT_LT(benjamini_hochberg(many)[0], 0.05);
}

TEST(BenjaminiHochberg, EdgeCases) {
  EXPECT_TRUE(benjamini_hochberg({}).empty());
  EXPECT_EQ(benjamini_hochberg({0.3}), std::vector<double>{0.3});
  EXPECT_EQ(benjamini_hochberg({0.9, 0.95}), (std::vector<double>{0.95, 0.95}));
}

}  // namespace
}  // namespace ampbench::gate
