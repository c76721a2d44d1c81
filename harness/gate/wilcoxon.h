// Wilcoxon signed-rank test, two-sided, as scipy.stats.wilcoxon computes it
// with its defaults (zero_method="wilcox", correction=False, method="auto").
// The gate uses it for paired runs: baseline and current runs interleaved in
// time (B1 C1 B2 C2 ...), so each pair shares the machine's speed of the
// moment and the test sees only the change within pairs. Pure statistics.
//
// Method selection ("auto", scipy's rule): the exact null distribution of
// W+ when there are at most kWilcoxonExactMax non-zero differences and no
// ties among their absolute values; otherwise the normal approximation with
// tie correction and no continuity correction. Zero differences are dropped.
#pragma once

#include <cstddef>
#include <vector>

namespace ampbench::gate {

struct WilcoxonResult {
  double w_plus = 0.0;   // rank sum of the positive differences
  double w_minus = 0.0;  // rank sum of the negative differences
  double p_value = 1.0;  // two-sided, in [0, 1]
  bool exact = false;
  std::size_t n = 0;     // non-zero differences used
};

inline constexpr std::size_t kWilcoxonExactMax = 50;

// Two-sided test that the differences are symmetric about 0. Throws
// std::invalid_argument on an empty input; all-zero differences give p = 1.
WilcoxonResult wilcoxon_signed_rank(const std::vector<double>& differences);

// P(W+ = k) for k = 0..n(n+1)/2 under the null (no ties). Exposed for tests.
std::vector<double> wilcoxon_exact_pmf(std::size_t n);

// Smallest two-sided p-value attainable with n pairs (all differences of one
// sign, no ties): 2 / 2^n, at most 1.
double wilcoxon_min_attainable_p(std::size_t n);

}  // namespace ampbench::gate
