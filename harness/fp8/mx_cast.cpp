#include "fp8/mx_cast.h"

#include <c10/core/DispatchKeySet.h>
#include <c10/core/impl/LocalDispatchKeySet.h>


namespace ampbench::fp8 {
namespace {

constexpr int kF32MantissaBits = 23;
constexpr int kE4m3MaxPow2 = 8;  // 256, e4m3's largest power of two
constexpr double kF32MinNormal = 1.1754943508222875e-38;  // 2^-126

int64_t blocks_of(int64_t cols, int64_t block) { return (cols + block - 1) / block; }

// hp [rows, cols] zero-padded to whole blocks and viewed [rows, blocks, block].
at::Tensor blocked(const at::Tensor& hp, int64_t block) {
  const int64_t cols = hp.size(1);
  const int64_t pad = blocks_of(cols, block) * block - cols;
  const at::Tensor padded = pad == 0 ? hp : at::constant_pad_nd(hp, {0, pad});
  return padded.reshape({hp.size(0), -1, block});
}

// torchao's FLOOR and CEIL: the exponent read from amax's float32 bits.
// Returns the biased exponents [rows, blocks, 1] and the scaled data.
std::pair<at::Tensor, at::Tensor> floor_or_ceil(const at::Tensor& data, const at::Tensor& max_abs,
                                                const MxCastOptions& o) {
  const at::Tensor bits = max_abs.view(at::kInt);
  at::Tensor pow2 = at::bitwise_and(at::bitwise_right_shift(bits, kF32MantissaBits), 0xFF) - kE8m0Bias;
  if (o.mode == MxScaleMode::kCeil) pow2 = pow2 + at::gt(at::bitwise_and(bits, 0x7FFFFF), 0);
  at::Tensor unbiased = pow2 - kE4m3MaxPow2;
  if (o.clamp_exponent) unbiased = at::clamp(unbiased, -kE8m0Bias, kE8m0Bias + 1);  // 255 is NaN's
  at::Tensor biased = (unbiased + kE8m0Bias).to(at::kByte);
  biased = at::where(at::isnan(max_abs), at::Scalar(int64_t{kE8m0Nan}), biased);
  at::Tensor scale = at::bitwise_left_shift(biased.to(at::kInt), kF32MantissaBits).view(at::kFloat);
  // torchao's floor at the smallest normal (its note: 2^-127 is lost under
  // inductor); only a block below 2^-118 sees it.
  scale = at::clamp_min(scale, kF32MinNormal);
  const double fmax = fp8_max(at::kFloat8_e4m3fn);
  return {biased, at::clamp(data / scale, -fmax, fmax)};
}

// torchao's RCEIL fallback (cuBLAS's rule), NaN and inf amaxes included.
std::pair<at::Tensor, at::Tensor> rceil(const at::Tensor& data, const at::Tensor& max_abs) {
  const double fmax = fp8_max(at::kFloat8_e4m3fn);
  const at::Tensor descale = max_abs / fmax;
  const at::Tensor normal = (at::clamp(at::ceil(at::log2(descale)), -kE8m0Bias, kE8m0Bias) + kE8m0Bias).to(at::kByte);
  const at::Tensor exponent =
      at::where(at::isnan(descale), at::Scalar(255), at::where(at::isinf(descale), at::Scalar(254), normal));
  const at::Tensor rcp = at::where(
      exponent == 255, descale,
      at::where(exponent == 254, at::scalar_tensor(std::ldexp(1.0, -127), descale.options()),
                at::where(exponent == 0, at::scalar_tensor(1.0, descale.options()),
                          at::exp2(kE8m0Bias - exponent.to(at::kFloat)))));
  return {exponent, at::clamp(data * rcp, -fmax, fmax)};
}

}  // namespace

MxTensor to_mx(const at::Tensor& hp, const MxCastOptions& o) {
  TORCH_CHECK(hp.dim() == 2, "to_mx: a 2-D tensor, not ", hp.dim(), "-D");
  TORCH_CHECK(hp.scalar_type() == at::kFloat || hp.scalar_type() == at::kBFloat16,
              "to_mx: float32 or bfloat16, not ", hp.scalar_type());
  TORCH_CHECK(o.block > 0, "to_mx: block size must be positive (got ", o.block, ")");
  const at::Tensor b = blocked(hp.contiguous(), o.block);
  // amax in the input's dtype, then float32, as torchao (exact either way).
  const at::Tensor max_abs = at::amax(at::abs(b), {-1}, /*keepdim=*/true).to(at::kFloat);
  const at::Tensor data = b.to(at::kFloat);
  auto [exponent, scaled] = o.mode == MxScaleMode::kRceil ? rceil(data, max_abs) : floor_or_ceil(data, max_abs, o);
  const at::Tensor e4m3 = scaled.to(at::kFloat8_e4m3fn).reshape({hp.size(0), -1}).narrow(1, 0, hp.size(1));
  return {e4m3.contiguous(), exponent.squeeze(-1), o.block, hp.scalar_type()};
}

namespace {

// torchao's get_fp_scale: 2^(e - 127) in float32, NaN for e = 255.
at::Tensor block_scales(const at::Tensor& exponent) {
  const at::Tensor offset = exponent.to(at::kShort) - kE8m0Bias;
  const at::Tensor scale = at::pow(at::full_like(offset, 2.0, offset.options().dtype(at::kFloat)), offset);
  return at::where(exponent != kE8m0Nan, scale, at::scalar_tensor(NAN, scale.options()));
}

}  // namespace

at::Tensor mx_value_scales(const MxTensor& t) {
  const int64_t rows = t.data.size(0);
  const at::Tensor per_block = block_scales(t.exponent).unsqueeze(-1).expand({rows, t.exponent.size(1), t.block});
  return per_block.reshape({rows, -1}).narrow(1, 0, t.data.size(1));
}

at::Tensor mx_dequantize(const MxTensor& t) {
  const at::Tensor scale = block_scales(t.exponent);
  const at::Tensor data = blocked(t.data.to(t.hp_dtype), t.block);
  const at::Tensor hp = data * scale.unsqueeze(-1).to(t.hp_dtype);
  return hp.reshape({t.data.size(0), -1}).narrow(1, 0, t.data.size(1));
}

at::Tensor mx_mm(const MxTensor& a, const MxTensor& b) {
  TORCH_CHECK(a.data.size(1) == b.data.size(1), "mx_mm: reduced dimensions differ (", a.data.size(1), " and ",
              b.data.size(1), ")");
  // torchao's GEMM runs inside its tensor subclass's dispatch, below autocast.
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
  return at::mm(mx_dequantize(a).contiguous(), mx_dequantize(b).contiguous().t());
}

at::Tensor mx_block_amax(const at::Tensor& hp) {
  return at::amax(at::abs(blocked(hp.contiguous(), kMxBlock)), {-1}).to(at::kFloat);
}

}  // namespace ampbench::fp8
