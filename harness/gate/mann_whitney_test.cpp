// Reference values: scipy.stats.mannwhitneyu(x, y, alternative="two-sided")
// (defaults: method "auto", use_continuity=True), reproduced by a pure-Python
// exact enumeration / normal approximation where scipy was unavailable; the
// 5-vs-4 example is the one in scipy's documentation.
#include "gate/mann_whitney.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "gate/compare.h"

namespace ampbench::gate {
namespace {

struct Known {
  std::vector<double> x;
  std::vector<double> y;
  double u1;
  double p;
  bool exact;
};

TEST(MannWhitney, MatchesScipyReferenceValues) {
  const std::vector<Known> known = {
      {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0.0, 0.007936507936507936, true},
      {{1.1, 2.2, 3.3, 4.4}, {0.5, 5.5, 6.6, 7.7}, 4.0, 0.34285714285714286, true},
      {{19, 22, 16, 29, 24}, {20, 11, 17, 12}, 17.0, 0.1111111111111111, true},
      {{1, 2, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 24.5, 0.05802198142821551, false},
      {{10, 10, 10}, {10, 10, 10}, 4.5, 1.0, false},
      {{1, 1, 1}, {2, 2, 2}, 0.0, 0.046854177603873774, false},
      {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
       {3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5},
       45.0,
       0.12602212177037314,
       false},
      {{3.1, 2.4, 5.6, 1.2, 4.4, 6.1, 2.2},
       {7.2, 8.4, 5.9, 6.6, 9.1, 7.7, 8.8, 6.3, 5.2, 9.9, 7.1},
       3.0,
       0.0004399195575666164,
       true},
      {{11.2, 10.1, 12.5, 13.3, 9.8, 10.9, 12.0, 11.7},
       {12.9, 13.4, 11.1, 14.2, 13.8, 12.2, 15.0, 13.1, 12.7, 14.6, 13.9, 11.5},
       14.0,
       0.0073033261887751055,
       true},
  };
  for (const auto& k : known) {
    const MannWhitneyResult r = mann_whitney_u(k.x, k.y);
    EXPECT_DOUBLE_EQ(r.u1, k.u1);
    EXPECT_DOUBLE_EQ(r.u2, static_cast<double>(k.x.size() * k.y.size()) - k.u1);
    EXPECT_NEAR(r.p_value, k.p, 1e-12 * std::max(1.0, k.p)) << "u1=" << k.u1;
    EXPECT_EQ(r.exact, k.exact);
  }
}

TEST(MannWhitney, AsymptoticMatchesScipyDocExample) {
  // scipy docs: mannwhitneyu(males, females, method="asymptotic") -> 0.11134688653314041
  const auto r = mann_whitney_u({19, 22, 16, 29, 24}, {20, 11, 17, 12}, MwuMethod::Asymptotic);
  EXPECT_NEAR(r.p_value, 0.11134688653314041, 1e-12);
  EXPECT_FALSE(r.exact);
}

TEST(MannWhitney, SymmetricInItsArguments) {
  const std::vector<double> x = {3.1, 2.4, 5.6, 1.2, 4.4};
  const std::vector<double> y = {7.2, 8.4, 5.9, 6.6, 9.1, 7.7};
  const auto a = mann_whitney_u(x, y);
  const auto b = mann_whitney_u(y, x);
  EXPECT_DOUBLE_EQ(a.p_value, b.p_value);
  EXPECT_DOUBLE_EQ(a.u1, b.u2);
}

TEST(MannWhitney, ExactPmfCounts) {
  // Counts for n1=3, n2=4 from enumerating the 35 rank arrangements.
  const std::vector<double> counts = {1, 1, 2, 3, 4, 4, 5, 4, 4, 3, 2, 1, 1};
  const auto pmf = mwu_exact_pmf(3, 4);
  ASSERT_EQ(pmf.size(), counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k) EXPECT_NEAR(pmf[k], counts[k] / 35.0, 1e-15);
  EXPECT_EQ(mwu_exact_pmf(4, 3), pmf);
}

TEST(MannWhitney, ExactLargeSampleIsFastAndNormalised) {
  const auto start = std::chrono::steady_clock::now();
  const auto pmf = mwu_exact_pmf(8, 2000);
  const double total = std::accumulate(pmf.begin(), pmf.end(), 0.0);
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(pmf.front(), pmf.back(), 1e-30);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
  // Beyond the cap the auto method switches to the normal approximation.
  std::vector<double> big(kExactMaxLarger + 1);
  std::iota(big.begin(), big.end(), 0.0);
  EXPECT_FALSE(mann_whitney_u({0.5, 1.5}, big).exact);
  EXPECT_THROW(mwu_exact_pmf(9, 9), std::invalid_argument);
}

TEST(MannWhitney, MinAttainableP) {
  EXPECT_NEAR(mwu_min_attainable_p(3, 3), 0.1, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(3, 4), 0.05714285714285714, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(4, 4), 0.02857142857142857, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(2, 8), 0.044444444444444446, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(1, 39), 0.05, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(1, 40), 0.04878048780487805, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(10, 10), 0.0001826717911095504, 1e-15);
  EXPECT_NEAR(mwu_min_attainable_p(9, 20), 2.4531160560804462e-05, 1e-17);
  EXPECT_EQ(mwu_min_attainable_p(0, 5), 1.0);
  // The attainable minimum is what the test returns for fully separated samples.
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2, 3, 4}, {5, 6, 7, 8}).p_value, mwu_min_attainable_p(4, 4));
  EXPECT_EQ(repetitions_needed(0.05), 4u);
  EXPECT_EQ(repetitions_needed(0.01), 5u);
}

TEST(MannWhitney, Median) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7.0);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(MannWhitney, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0, std::numeric_limits<double>::infinity()}, {1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench::gate
