#include "check/rowwise_scale_audit.h"

#include <algorithm>
#include <cmath>

namespace ampbench {

namespace {

// torchao rounds with exp2(floor(log2(scale))) in float32: a scale within a
// float32 rounding of the next power of two may land on it, since log2 in
// float32 rounds up to the integer there.
bool follows_rule(float used, float amax) {
  const float expected = expected_rowwise_scale(amax);
  if (used == expected || (std::isnan(used) && std::isnan(expected))) return true;
  const float unrounded = static_cast<float>(1.0 / std::max(static_cast<double>(amax), 1e-12) * 448.0);
  return used == 2 * expected && std::abs(unrounded - used) <= 1e-6f * used;
}

std::string row_mismatch(const fp8::RowwiseCastTrace& c, std::size_t row) {
  return "row " + std::to_string(row) + " (amax " + std::to_string(c.row_amax[row]) + ") used scale " +
         std::to_string(c.scale[row]) + ", the rule gives " + std::to_string(expected_rowwise_scale(c.row_amax[row]));
}

std::optional<std::string> audit_rows(const fp8::RowwiseCastTrace& c) {
  if (c.scale.size() != c.row_amax.size())
    return std::to_string(c.scale.size()) + " scales for " + std::to_string(c.row_amax.size()) +
           " rows along the reduced dimension";
  for (std::size_t r = 0; r < c.scale.size(); ++r)
    if (!follows_rule(c.scale[r], c.row_amax[r])) return row_mismatch(c, r);
  return std::nullopt;
}

}  // namespace

float expected_rowwise_scale(float amax) {
  const float scale = static_cast<float>(1.0 / std::max(static_cast<double>(amax), 1e-12) * 448.0);
  if (!std::isfinite(scale) || scale == 0) return scale;  // a NaN or infinite amax
  int exponent = 0;
  std::frexp(scale, &exponent);  // scale = m * 2^exponent, m in [0.5, 1)
  return std::ldexp(1.0f, exponent - 1);
}

std::optional<RowwiseScaleMismatch> first_rowwise_scale_mismatch(const std::vector<RowwiseLayerCasts>& layers) {
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int k = 0; k < 3; ++k)
      for (std::size_t i = 0; i < layers[l][k].size(); ++i)
        if (auto what = audit_rows(layers[l][k][i])) return RowwiseScaleMismatch{l, k, i, *what};
  return std::nullopt;
}

}  // namespace ampbench
