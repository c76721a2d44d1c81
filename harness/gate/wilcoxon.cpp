#include "gate/wilcoxon.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ampbench::gate {

std::vector<double> wilcoxon_exact_pmf(std::size_t n) {
  // counts[k]: sign assignments of ranks 1..n whose positive ranks sum to k;
  // below 2^50, so doubles hold them exactly.
  const std::size_t top = n * (n + 1) / 2;
  std::vector<double> counts(top + 1, 0.0);
  counts[0] = 1.0;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t k = top; k >= rank; --k) counts[k] += counts[k - rank];
  }
  const double total = std::ldexp(1.0, static_cast<int>(n));
  for (double& c : counts) c /= total;
  return counts;
}

double wilcoxon_min_attainable_p(std::size_t n) {
  return std::min(1.0, 2.0 * std::ldexp(1.0, -static_cast<int>(n)));
}

WilcoxonResult wilcoxon_signed_rank(const std::vector<double>& differences) {
  if (differences.empty()) throw std::invalid_argument("wilcoxon_signed_rank: no differences");
  std::vector<double> d;
  for (double x : differences) {
    if (x != 0.0) d.push_back(x);
  }
  WilcoxonResult r;
  r.n = d.size();
  if (d.empty()) return r;

  // Average ranks of |d|, ties sharing the mean rank.
  std::vector<std::size_t> order(d.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(d[a]) < std::abs(d[b]); });
  std::vector<double> rank(d.size());
  double tie_term = 0.0;  // sum of t^3 - t over tie groups
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && std::abs(d[order[j + 1]]) == std::abs(d[order[i]])) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mean_rank;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  for (std::size_t i = 0; i < d.size(); ++i) (d[i] > 0 ? r.w_plus : r.w_minus) += rank[i];

  const double t_stat = std::min(r.w_plus, r.w_minus);
  const double n = static_cast<double>(r.n);
  if (r.n <= kWilcoxonExactMax && tie_term == 0.0) {
    r.exact = true;
    const std::vector<double> pmf = wilcoxon_exact_pmf(r.n);
    double cdf = 0.0;
    for (std::size_t k = 0; k <= static_cast<std::size_t>(t_stat); ++k) cdf += pmf[k];
    r.p_value = std::min(1.0, 2.0 * cdf);
    return r;
  }
  const double mean = n * (n + 1.0) / 4.0;
  const double var = n * (n + 1.0) * (2.0 * n + 1.0) / 24.0 - tie_term / 48.0;
  if (!(var > 0.0)) return r;
  const double z = (t_stat - mean) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(-z / std::sqrt(2.0)));  // 2 * Phi(z), z <= 0
  return r;
}

}  // namespace ampbench::gate
