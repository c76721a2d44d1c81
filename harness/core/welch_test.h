// The statistics of the convergence check (check/convergence_check.h) as
// small pure functions: MLPerf's olympic trimming, and a one-sided Welch
// t-test whose p-values tests pin to scipy.stats.
#pragma once

#include <vector>

namespace ampbench {

// `values` sorted with the `k` smallest and `k` largest dropped (MLPerf's
// reference convergence points drop the best and the worst run: k = 1).
// Empty when fewer than 2k + 1 values remain.
std::vector<double> olympic_trim(std::vector<double> values, int k = 1);

// P(T > t) for Student's t with `df` > 0 degrees of freedom
// (scipy.stats.t.sf); t may be infinite.
double student_t_sf(double t, double df);

// The regularized incomplete beta function I_x(a, b) (scipy.special.betainc).
double incomplete_beta(double a, double b, double x);

struct WelchTest {
  double t = 0;   // (mean(a) - mean(b)) / sqrt(var(a)/na + var(b)/nb)
  double df = 0;  // Welch-Satterthwaite
  double p = 0.5;  // one-sided: H1 mean(a) > mean(b)
};

// Welch's unequal-variance t-test, one-sided (scipy.stats.ttest_ind(a, b,
// equal_var=False, alternative="greater")). Needs two values on each side.
// When neither sample varies, t is +-inf (p 0 or 1) for different means and
// 0 (p 0.5: no evidence either way) for equal ones.
WelchTest welch_greater(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ampbench
