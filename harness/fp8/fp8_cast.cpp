#include "fp8/fp8_cast.h"

#include <ATen/core/grad_mode.h>
#include <c10/core/DispatchKeySet.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include <limits>

#include "fp8/fp8_recipe.h"

namespace ampbench::fp8 {
namespace {

bool is_row_major(const at::Tensor& t) { return t.stride(0) > t.stride(1) && t.stride(1) == 1; }

// The OCP formats' non-saturating cast, as c10's float8 conversions define
// it: a value at or past the rounding boundary above the largest finite
// becomes NaN in e4m3fn (it has no infinity) and +-inf in e5m2. Written out
// because torch's own float -> e4m3fn conversion differs across the window
// (2.11 gives NaN, 2.15 saturates to 448), and a cast without saturation
// must mean the same on every torch.
at::Tensor overflow_unsaturated(const at::Tensor& scaled, at::ScalarType fp8) {
  const bool e4m3 = fp8 == at::kFloat8_e4m3fn;
  const at::Tensor beyond = scaled.abs() >= fp8_overflow_boundary(fp8);
  const at::Tensor special = e4m3 ? at::full({}, std::numeric_limits<float>::quiet_NaN(), scaled.options())
                                  : scaled.sign() * std::numeric_limits<float>::infinity();
  return at::where(beyond, special, scaled);
}

}  // namespace

at::Tensor amax_to_scale(const at::Tensor& amax, at::ScalarType fp8, bool pow2) {
  // float64 so that the scale does not depend on how float32 division is
  // compiled (torchao's reason); torchao's float / tensor is reciprocal * max.
  at::Tensor scale = at::clamp_min(amax.to(at::kDouble), 1e-12).reciprocal().mul(fp8_max(fp8)).to(at::kFloat);
  if (pow2) scale = at::exp2(at::floor(at::log2(scale)));
  return scale;
}

at::Tensor amax_of(const at::Tensor& hp, std::optional<int64_t> axis) {
  if (!axis) return at::max(at::abs(hp));
  return at::amax(at::abs(hp), {*axis}, /*keepdim=*/true);
}

Fp8Tensor cast_with_scale(const at::Tensor& hp, const at::Tensor& scale, at::ScalarType fp8, bool saturate) {
  at::Tensor scaled = hp.to(at::kFloat) * scale;
  scaled = saturate ? scaled.clamp(-fp8_max(fp8), fp8_max(fp8)) : overflow_unsaturated(scaled, fp8);
  return {scaled.to(fp8), scale};
}

Fp8Tensor cast_dynamic(const at::Tensor& hp, at::ScalarType fp8, std::optional<int64_t> axis, bool pow2,
                       bool saturate) {
  at::Tensor scale;
  {
    at::NoGradGuard no_grad;
    scale = amax_to_scale(amax_of(hp, axis), fp8, pow2);
  }
  return cast_with_scale(hp, scale, fp8, saturate);
}

at::Tensor scaled_mm(const Fp8Tensor& a, const Fp8Tensor& b, at::ScalarType out_dtype, bool fast_accum) {
  // Below autocast, where torchao's GEMM runs (inside its tensor subclass's
  // dispatch): autocast's own policy for _scaled_mm changes the result.
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
  const at::Tensor a_data = is_row_major(a.data) ? a.data : a.data.contiguous();
  const at::Tensor b_data = is_row_major(b.data) ? b.data.t().contiguous().t() : b.data;
  at::Tensor a_inverse = a.scale.reciprocal();
  at::Tensor b_inverse = b.scale.reciprocal();
  const bool rowwise = a.scale.sizes() == at::IntArrayRef{a_data.size(0), 1} &&
                       b.scale.sizes() == at::IntArrayRef{1, b_data.size(1)};
  at::Tensor post_inverse;
  if (rowwise && !fast_accum) {
    post_inverse = a_inverse * b_inverse;
    a_inverse = a_inverse.new_ones({});
    b_inverse = a_inverse.new_ones({});
  }
  // _scaled_mm has no float32 or float16 output for rowwise scales.
  const bool via_bf16 = rowwise && (out_dtype == at::kHalf || out_dtype == at::kFloat);
  at::Tensor out = at::_scaled_mm(a_data, b_data, a_inverse, b_inverse, std::nullopt, std::nullopt,
                                  via_bf16 ? at::kBFloat16 : out_dtype, fast_accum);
  if (post_inverse.defined()) out.mul_(post_inverse);
  return via_bf16 ? out.to(out_dtype) : out;
}

}  // namespace ampbench::fp8
