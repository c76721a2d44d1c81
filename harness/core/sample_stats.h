// Summary statistics of repeated measurements (throughput repetitions), as
// small pure functions: the results writer records them, tests pin them to
// numpy's definitions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "core/median.h"

namespace ampbench {

// 0 for no values.
inline double mean_of(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x / static_cast<double>(v.size());
  return mean;
}

// Sample standard deviation (n - 1, numpy's ddof=1); 0 below two values.
inline double stddev_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double mean = mean_of(v);
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

// Interquartile range with linear interpolation (numpy's default
// percentile method); 0 for no values.
inline double iqr_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  return q(0.75) - q(0.25);
}

}  // namespace ampbench
