#include "gate/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "core/median.h"

namespace ampbench::gate {
namespace {

using Count = unsigned __int128;

// Coefficients of the Gaussian binomial [m+n choose m]_q: coefficient k is the
// number of rank arrangements with U == k. Built as
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). Unsigned arithmetic wraps, but every
// intermediate quotient is an integer polynomial and the final counts are
// below 2^128 for the sizes allowed, so the wrapped results are exact.
std::vector<Count> exact_counts(std::size_t n1, std::size_t n2) {
  const std::size_t m = std::min(n1, n2);
  const std::size_t n = std::max(n1, n2);
  std::vector<Count> poly(m * n + m + 1, 0);
  poly[0] = 1;
  std::size_t degree = 0;
  for (std::size_t i = 1; i <= m; ++i) {
    const std::size_t shift = n + i;
    for (std::size_t k = degree + shift; k >= shift; --k) poly[k] -= poly[k - shift];
    degree += shift;
    for (std::size_t k = i; k <= degree; ++k) poly[k] += poly[k - i];
    degree -= i;
  }
  poly.resize(m * n + 1);
  return poly;
}

long double to_ld(Count c) {
  const auto hi = static_cast<unsigned long long>(c >> 64);
  const auto lo = static_cast<unsigned long long>(c);
  return std::ldexp(static_cast<long double>(hi), 64) + static_cast<long double>(lo);
}

bool exact_allowed(std::size_t n1, std::size_t n2) {
  return std::min(n1, n2) <= kExactMaxSmaller && std::max(n1, n2) <= kExactMaxLarger;
}

double binomial(std::size_t n, std::size_t k) {
  k = std::min(k, n - k);
  double r = 1.0;
  for (std::size_t i = 1; i <= k; ++i) r = r * static_cast<double>(n - k + i) / static_cast<double>(i);
  return r;
}

// Two-sided normal-approximation p-value with continuity correction.
double asymptotic_p(double u_max, double n1, double n2, double tie_term, double* z_out) {
  const double n = n1 + n2;
  const double mu = n1 * n2 / 2.0;
  const double var = n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
  const double numerator = u_max - mu - 0.5;
  if (!(var > 0.0)) {  // every value equal: no evidence of a difference
    *z_out = 0.0;
    return 1.0;
  }
  const double z = numerator / std::sqrt(var);
  *z_out = z;
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

std::vector<double> mwu_exact_pmf(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) throw std::invalid_argument("mwu_exact_pmf: empty sample");
  if (!exact_allowed(n1, n2)) throw std::invalid_argument("mwu_exact_pmf: samples too large for the exact method");
  const std::vector<Count> counts = exact_counts(n1, n2);
  Count total = 0;
  for (Count c : counts) total += c;
  std::vector<double> pmf(counts.size());
  const long double t = to_ld(total);
  for (std::size_t k = 0; k < counts.size(); ++k) pmf[k] = static_cast<double>(to_ld(counts[k]) / t);
  return pmf;
}

MannWhitneyResult mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y, MwuMethod method) {
  if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_u: both samples need at least one value");
  MannWhitneyResult r;
  r.n1 = x.size();
  r.n2 = y.size();
  const std::size_t n = r.n1 + r.n2;

  // Rank the pooled sample, averaging ranks over runs of equal values.
  std::vector<std::pair<double, std::size_t>> pooled;
  pooled.reserve(n);
  for (std::size_t i = 0; i < r.n1; ++i) pooled.emplace_back(x[i], i);
  for (std::size_t i = 0; i < r.n2; ++i) pooled.emplace_back(y[i], r.n1 + i);
  for (const auto& v : pooled) {
    if (!std::isfinite(v.first)) throw std::invalid_argument("mann_whitney_u: non-finite value");
  }
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_x = 0.0;
  double tie_term = 0.0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    const double run = static_cast<double>(j - i + 1);
    const double avg_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) {
      if (pooled[k].second < r.n1) rank_sum_x += avg_rank;
    }
    if (run > 1.0) {
      r.ties = true;
      tie_term += run * run * run - run;
    }
    i = j + 1;
  }
  const double n1 = static_cast<double>(r.n1);
  const double n2 = static_cast<double>(r.n2);
  r.u1 = rank_sum_x - n1 * (n1 + 1.0) / 2.0;
  r.u2 = n1 * n2 - r.u1;
  const double u_max = std::max(r.u1, r.u2);

  if (method == MwuMethod::Auto) {
    method = (!r.ties && exact_allowed(r.n1, r.n2)) ? MwuMethod::Exact : MwuMethod::Asymptotic;
  }
  if (method == MwuMethod::Exact) {
    if (!exact_allowed(r.n1, r.n2)) throw std::invalid_argument("mann_whitney_u: samples too large for the exact method");
    // With ties (only when forced) U may be a half-integer: round up, which
    // makes the p-value conservative.
    const auto u = static_cast<std::size_t>(std::ceil(u_max));
    const std::vector<Count> counts = exact_counts(r.n1, r.n2);
    Count total = 0;
    Count tail = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k >= u) tail += counts[k];
    }
    r.exact = true;
    r.z = 0.0;
    r.p_value = static_cast<double>(std::min<long double>(1.0L, 2.0L * to_ld(tail) / to_ld(total)));
  } else {
    r.exact = false;
    r.p_value = asymptotic_p(u_max, n1, n2, tie_term, &r.z);
  }
  return r;
}

double mwu_min_attainable_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1.0;
  if (exact_allowed(n1, n2)) return std::min(1.0, 2.0 / binomial(n1 + n2, n1));
  double z = 0.0;
  const double a = static_cast<double>(n1);
  const double b = static_cast<double>(n2);
  return asymptotic_p(a * b, a, b, 0.0, &z);
}

// The harness's median, so the gate's medians are the ones results files report.
double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of an empty sample");
  return ampbench::median(std::move(values));
}

}  // namespace ampbench::gate
