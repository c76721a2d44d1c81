#include "check/blockwise_scale_audit.h"

#include <algorithm>
#include <cmath>

namespace ampbench {
namespace {

constexpr double kRelative = 1e-6;

std::optional<std::string> audit_tiles(const fp8::RowwiseCastTrace& c) {
  if (c.scale.size() != c.row_amax.size())
    return std::to_string(c.scale.size()) + " scales for " + std::to_string(c.row_amax.size()) +
           " tiles of 128 along the reduced dimension";
  for (std::size_t t = 0; t < c.scale.size(); ++t) {
    const float want = expected_blockwise_scale(c.row_amax[t]);
    if (std::abs(static_cast<double>(c.scale[t]) - want) <= kRelative * want) continue;
    return "tile " + std::to_string(t) + " (amax " + std::to_string(c.row_amax[t]) + ") used scale " +
           std::to_string(c.scale[t]) + ", the rule gives " + std::to_string(want);
  }
  return std::nullopt;
}

}  // namespace

float expected_blockwise_scale(float amax) {
  const float s = static_cast<float>(448.0 / std::max(static_cast<double>(amax), 1e-12));
  return 1.0f / s;
}

std::optional<RowwiseScaleMismatch> first_blockwise_scale_mismatch(const std::vector<BlockwiseLayerCasts>& layers) {
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int k = 0; k < 3; ++k)
      for (std::size_t i = 0; i < layers[l][k].size(); ++i)
        if (auto why = audit_tiles(layers[l][k][i])) return RowwiseScaleMismatch{l, k, i, std::move(*why)};
  return std::nullopt;
}

}  // namespace ampbench
