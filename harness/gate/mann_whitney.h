// Mann-Whitney U test (Wilcoxon rank-sum), two-sided, as scipy.stats.mannwhitneyu
// computes it with its defaults (method="auto", use_continuity=True), which is
// what Google Benchmark's tools/compare.py calls. Pure statistics: no I/O.
//
// Method selection ("auto", scipy's rule):
//   - exact null distribution when there are no ties and at least one sample
//     has 8 values or fewer (here additionally capped at kExactMaxLarger values
//     in the larger sample, where counts stop fitting 128-bit integers);
//   - otherwise the normal approximation with tie correction and continuity
//     correction.
#pragma once

#include <cstddef>
#include <vector>

namespace ampbench::gate {

enum class MwuMethod { Auto, Exact, Asymptotic };

struct MannWhitneyResult {
  double u1 = 0.0;        // U of the first sample: pairs (x, y) with x > y, ties count 1/2
  double u2 = 0.0;        // n1 * n2 - u1
  double p_value = 1.0;   // two-sided, in [0, 1]
  double z = 0.0;         // normal deviate (asymptotic method only; 0 for exact)
  bool exact = false;     // which method produced p_value
  bool ties = false;      // any value shared between or within the samples
  std::size_t n1 = 0;
  std::size_t n2 = 0;
};

// Largest size of the bigger sample for which the exact method is used.
inline constexpr std::size_t kExactMaxSmaller = 8;
inline constexpr std::size_t kExactMaxLarger = 10000;

// Two-sided test of x against y. Requires both samples non-empty (throws
// std::invalid_argument otherwise) and finite values.
MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y,
                                 MwuMethod method = MwuMethod::Auto);

// Number of the C(n1+n2, n1) equally likely rank arrangements (no ties) whose
// U statistic is k, for k = 0..n1*n2, as probabilities. Exposed for tests.
std::vector<double> mwu_exact_pmf(std::size_t n1, std::size_t n2);

// The smallest two-sided p-value the test can return for these sample sizes
// (all of one sample above all of the other, no ties), using the method "auto"
// would choose for untied data. When this is >= alpha the test can never
// reject: the comparison has insufficient repetitions.
double mwu_min_attainable_p(std::size_t n1, std::size_t n2);

// Median (mean of the two middle values for an even count). Throws
// std::invalid_argument on an empty sample.
double median(std::vector<double> values);

}  // namespace ampbench::gate
