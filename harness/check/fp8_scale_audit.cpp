#include "check/fp8_scale_audit.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace ampbench {

namespace {

double format_max(int operand) {
  return fp8::fp8_max(operand == 2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn);
}

bool same_scale(double used, double expected) {
  return std::abs(used - expected) <= 1e-6 * std::abs(expected);
}

// The scale each cast should have used under the tensorwise rule.
std::vector<double> tensorwise_scales(const std::vector<fp8::CastTrace>& casts, double fmax) {
  std::vector<double> scales;
  for (const fp8::CastTrace& c : casts) scales.push_back(static_cast<float>(1.0 / std::max(c.amax, 1e-12) * fmax));
  return scales;
}

// ... under delayed scaling: each cast uses what the casts before it left.
std::vector<double> delayed_scales(const std::vector<fp8::CastTrace>& casts, double fmax,
                                   const fp8::RecipeOptions& recipe) {
  std::vector<double> scales;
  std::deque<float> history;  // the newest last
  float scale = 1.0f;
  for (const fp8::CastTrace& c : casts) {
    scales.push_back(scale);
    history.push_back(static_cast<float>(c.amax));
    if (static_cast<int64_t>(history.size()) > recipe.history_len()) history.pop_front();
    float amax = history.back();
    if (recipe.amax_compute() == fp8::AmaxCompute::kMax)  // NaN wins, as in torch.max
      for (const float h : history) amax = std::isnan(h) || std::isnan(amax) ? NAN : std::max(amax, h);
    if (amax > 0 && std::isfinite(amax))
      scale = (1.0f / amax) * static_cast<float>(fmax) / static_cast<float>(std::ldexp(1.0, recipe.margin()));
  }
  return scales;
}

}  // namespace

std::optional<Fp8ScaleMismatch> first_fp8_scale_mismatch(const fp8::RecipeOptions& recipe,
                                                         const std::vector<Fp8LayerCasts>& layers) {
  // Rowwise scales are per row; MXFP8's per block (check/mx_scale_audit.h).
  if (recipe.scaling() == fp8::Scaling::kRowwise || recipe.scaling() == fp8::Scaling::kMxfp8 ||
      recipe.scaling() == fp8::Scaling::kNvfp4 || recipe.scaling() == fp8::Scaling::kBlockwise)
    return std::nullopt;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    for (int k = 0; k < 3; ++k) {
      const std::vector<fp8::CastTrace>& casts = layers[l][k];
      const std::vector<double> expected = recipe.scaling() == fp8::Scaling::kDelayed
                                               ? delayed_scales(casts, format_max(k), recipe)
                                               : tensorwise_scales(casts, format_max(k));
      for (std::size_t i = 0; i < casts.size(); ++i)
        if (!same_scale(casts[i].scale, expected[i])) return Fp8ScaleMismatch{l, k, i, casts[i].scale, expected[i]};
    }
  }
  return std::nullopt;
}

std::string fp8_operand_name(int operand) {
  static const char* const kNames[] = {"input", "weight", "output gradient"};
  return kNames[operand];
}

}  // namespace ampbench
