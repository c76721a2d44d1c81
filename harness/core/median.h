// The one median the harness reports (throughput.median, speedups, scaling),
// so every figure derived from "the median" agrees with the results file.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ampbench {

// Mean of the two middle values for an even count; 0 for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace ampbench
