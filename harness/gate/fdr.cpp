#include "gate/fdr.h"

#include <algorithm>
#include <numeric>

namespace ampbench::gate {

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m, 1.0);
  double running_min = 1.0;
  for (std::size_t k = m; k-- > 0;) {  // from the largest p down
    const double scaled = p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running_min = std::min(running_min, scaled);
    q[order[k]] = std::min(1.0, running_min);
  }
  return q;
}

}  // namespace ampbench::gate
