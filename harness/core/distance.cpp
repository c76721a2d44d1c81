#include "core/distance.h"

#include <algorithm>
#include <cmath>

namespace ampbench {

double loss_deviation(double value, double reference) {
  const double d = std::abs(value - reference) / std::max(std::abs(reference), 1e-30);
  return std::isfinite(d) ? d : INFINITY;
}

double relative_l2(const std::vector<float>& value, const std::vector<float>& reference,
                   const std::vector<float>& origin) {
  if (value.size() != reference.size() || (!origin.empty() && origin.size() != reference.size())) return INFINITY;
  double diff = 0, scale = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    diff += std::pow(static_cast<double>(value[i]) - reference[i], 2);
    scale += std::pow(static_cast<double>(reference[i]) - (origin.empty() ? 0.0 : origin[i]), 2);
  }
  if (!std::isfinite(diff)) return INFINITY;
  return scale > 0 ? std::sqrt(diff / scale) : std::sqrt(diff);
}

}  // namespace ampbench
