#include "gate/wilcoxon.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

namespace ampbench::gate {
namespace {

// Two-sided exact p-value by enumerating all 2^n sign assignments of the
// observed ranks: the definition the DP must reproduce.
double brute_force_p(const std::vector<double>& d) {
  const std::size_t n = d.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(d[a]) < std::abs(d[b]); });
  double w_minus = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (d[order[k]] < 0) w_minus += static_cast<double>(k + 1);
  }
  double w_plus = static_cast<double>(n * (n + 1) / 2) - w_minus;
  const double t = std::min(w_plus, w_minus);
  std::size_t at_most = 0;
  for (std::size_t mask = 0; mask < (std::size_t{1} << n); ++mask) {
    double w = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (mask & (std::size_t{1} << k)) w += static_cast<double>(k + 1);
    }
    at_most += w <= t;
  }
  return std::min(1.0, 2.0 * static_cast<double>(at_most) / std::ldexp(1.0, static_cast<int>(n)));
}

TEST(Wilcoxon, ScipyDocumentationExample) {
  // scipy.stats.wilcoxon's docstring (Darwin's plant heights): statistic 24,
  // p = 0.041259765625, exact.
  const std::vector<double> d = {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
  const WilcoxonResult r = wilcoxon_signed_rank(d);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(std::min(r.w_plus, r.w_minus), 24.0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.041259765625);
}

TEST(Wilcoxon, ExactMatchesEnumeration) {
  std::mt19937 gen(7);
  std::normal_distribution<double> noise(0.3, 1.0);
  for (std::size_t n : {1u, 3u, 6u, 9u, 12u}) {
    std::vector<double> d;
    for (std::size_t i = 0; i < n; ++i) d.push_back(noise(gen));
    EXPECT_NEAR(wilcoxon_signed_rank(d).p_value, brute_force_p(d), 1e-12) << "n=" << n;
  }
}

TEST(Wilcoxon, SmallestAttainablePValue) {
  EXPECT_DOUBLE_EQ(wilcoxon_min_attainable_p(5), 0.0625);
  EXPECT_DOUBLE_EQ(wilcoxon_min_attainable_p(6), 0.03125);
  EXPECT_DOUBLE_EQ(wilcoxon_min_attainable_p(1), 1.0);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({-1, -2, -3, -4, -5, -6}).p_value, 0.03125);
  const std::vector<double> pmf = wilcoxon_exact_pmf(10);
  EXPECT_NEAR(std::accumulate(pmf.begin(), pmf.end(), 0.0), 1.0, 1e-12);
}

TEST(Wilcoxon, TiesUseTheNormalApproximation) {
  // |d| ranks: 1,1,1 -> 2; 2,2 -> 4.5; 3 -> 6; 4 -> 7. W- = 2, n = 7,
  // var = 7*8*15/24 - (24 + 6)/48, z = (2 - 14) / sqrt(var).
  const WilcoxonResult r = wilcoxon_signed_rank({1, 1, -1, 2, 2, 3, 4});
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.w_minus, 2.0);
  EXPECT_NEAR(r.p_value, 0.04068490878074478, 1e-12);
}

TEST(Wilcoxon, ZerosAreDroppedAndAllZeroIsNoEvidence) {
  const WilcoxonResult r = wilcoxon_signed_rank({0, 0, 1, 2, 3, 4, 5, 6});
  EXPECT_EQ(r.n, 6u);
  EXPECT_DOUBLE_EQ(r.p_value, 0.03125);
  EXPECT_DOUBLE_EQ(wilcoxon_signed_rank({0, 0, 0}).p_value, 1.0);
  EXPECT_THROW(wilcoxon_signed_rank({}), std::invalid_argument);
}

}  // namespace
}  // namespace ampbench::gate
