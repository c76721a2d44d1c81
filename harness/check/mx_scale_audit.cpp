#include "check/mx_scale_audit.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ampbench {
namespace {

constexpr int kBias = 127;

// Why this cast breaks the rule, or "" when it follows it.
std::string audit_cast(const fp8::MxCastTrace& c, fp8::MxScaleMode mode) {
  const std::size_t rows = static_cast<std::size_t>(c.rows);
  if (rows == 0) return "";
  const std::size_t blocks = c.block_amax.size() / rows;
  const std::size_t used = c.exponent.size() / rows;
  if (used != blocks)
    return std::to_string(used) + " exponents a row, where 32-value blocks give " + std::to_string(blocks);
  for (std::size_t i = 0; i < c.exponent.size(); ++i) {
    const int expected = expected_e8m0(c.block_amax[i], mode);
    if (c.exponent[i] != expected)
      return "block " + std::to_string(i % blocks) + " of row " + std::to_string(i / blocks) + " (amax " +
             std::to_string(c.block_amax[i]) + ") has E8M0 exponent " + std::to_string(c.exponent[i]) +
             ", the rule gives " + std::to_string(expected);
  }
  return "";
}

}  // namespace

int expected_e8m0(float amax, fp8::MxScaleMode mode) {
  if (std::isnan(amax)) return 255;
  if (mode == fp8::MxScaleMode::kRceil) {
    const float descale = amax / 448.0f;
    if (std::isinf(descale)) return 254;
    const float e = std::ceil(std::log2(descale));
    return static_cast<int>(std::clamp(e, -127.0f, 127.0f)) + kBias;
  }
  uint32_t bits = 0;
  std::memcpy(&bits, &amax, sizeof bits);
  int pow2 = static_cast<int>((bits >> 23) & 0xFF) - kBias;
  if (mode == fp8::MxScaleMode::kCeil && (bits & 0x7FFFFF) != 0) ++pow2;
  return std::clamp(pow2 - 8, -kBias, kBias + 1) + kBias;
}

std::optional<MxScaleMismatch> first_mx_scale_mismatch(const fp8::RecipeOptions& recipe,
                                                       const std::vector<MxLayerCasts>& layers) {
  if (recipe.scaling() != fp8::Scaling::kMxfp8) return std::nullopt;
  // The recipe's rule: a run that rounds up where it should round down is
  // what the audit is for, so ceil is never the rule.
  const fp8::MxScaleMode rule =
      recipe.mx_scale_mode() == fp8::MxScaleMode::kRceil ? fp8::MxScaleMode::kRceil : fp8::MxScaleMode::kFloor;
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int k = 0; k < 3; ++k)
      for (std::size_t i = 0; i < layers[l][k].size(); ++i)
        if (std::string why = audit_cast(layers[l][k][i], rule); !why.empty())
          return MxScaleMismatch{l, k, i, std::move(why)};
  return std::nullopt;
}

}  // namespace ampbench
