// Numbers as results.json writes them: JSON has no NaN or infinity, so a
// non-finite value (a diverged run's loss, a seed that never reached the
// target) is written as null.
#pragma once

#include <cmath>
#include <vector>

#include "core/json.h"

namespace ampbench {

inline nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

inline nlohmann::json finite_or_null(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const double v : values) out.push_back(finite_or_null(v));
  return out;
}

}  // namespace ampbench
