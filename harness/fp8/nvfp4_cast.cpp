#include "fp8/nvfp4_cast.h"

#include <ATen/CPUGeneratorImpl.h>

namespace ampbench::fp8 {
namespace {

constexpr double kE4m3Max = 448.0;
constexpr double kE4m3Tiny = 0.015625;  // 2^-6, E4M3's smallest normal (torchao's E4M3_EPS)

// The spacing of E2M1 values at |x|: 0.5 below 2, 1 up to 4, 2 up to 6.
at::Tensor e2m1_step(const at::Tensor& a) {
  return at::where(a < 2.0, at::scalar_tensor(0.5, a.options()),
                   at::where(a < 4.0, at::scalar_tensor(1.0, a.options()), at::scalar_tensor(2.0, a.options())));
}

}  // namespace

at::Tensor round_e2m1(const at::Tensor& scaled, const at::Tensor& uniform) {
  const at::Tensor a = at::abs(scaled);
  const at::Tensor step = e2m1_step(a);
  // a / step is exact (step is a power of two), so both roundings are of the
  // true value: at::round is to nearest even, and 0.25, 0.75, ..., 5 land on
  // 0, 1, 1, 2, 2, 4, 4 as the E2M1 encoding's ties to even do.
  at::Tensor q;
  if (!uniform.defined()) {
    q = at::round(a / step) * step;
  } else {
    TORCH_CHECK(uniform.sizes() == scaled.sizes(), "round_e2m1: ", uniform.sizes(), " draws for ", scaled.sizes(),
                " values");
    const at::Tensor below = at::floor(a / step) * step;
    q = below + step * at::lt(uniform, (a - below) / step).to(at::kFloat);
  }
  // NaN stays NaN (the cast clamps, which keeps it); the sign of zero kept.
  return at::where(at::isnan(scaled), scaled, at::copysign(q, scaled));
}

Nvfp4Tensor to_nvfp4(const at::Tensor& hp, const Nvfp4CastOptions& o) {
  TORCH_CHECK(hp.dim() == 2, "to_nvfp4: a 2-D tensor, not ", hp.dim(), "-D");
  TORCH_CHECK(hp.scalar_type() == at::kFloat || hp.scalar_type() == at::kBFloat16,
              "to_nvfp4: float32 or bfloat16, not ", hp.scalar_type());
  TORCH_CHECK(o.block > 0 && hp.size(1) % o.block == 0, "to_nvfp4: ", hp.size(1),
              " columns are not a whole number of blocks of ", o.block);
  const at::Tensor data = hp.to(at::kFloat).contiguous().reshape({hp.size(0), -1, o.block});
  const at::Tensor block_amax = at::amax(at::abs(data), {-1});
  const at::Tensor block_scale = block_amax / kE2m1Max;
  Nvfp4Tensor out{at::Tensor(), at::Tensor(), at::Tensor(), o.block, hp.scalar_type()};
  at::Tensor reciprocal;
  if (o.tensor_scale) {
    const at::Tensor amax = at::abs(hp).max().to(at::kFloat);
    const at::Tensor scale = amax / (kE4m3Max * kE2m1Max);
    out.tensor_scale = at::where(amax == 0, at::ones_like(scale), scale);
    out.block_scale = at::clamp(block_scale / out.tensor_scale, kE4m3Tiny, kE4m3Max).to(at::kFloat8_e4m3fn);
    reciprocal = at::reciprocal(out.tensor_scale) / out.block_scale.to(at::kFloat);
  } else {
    out.block_scale = at::clamp(block_scale, kE4m3Tiny, kE4m3Max).to(at::kFloat8_e4m3fn);
    reciprocal = at::reciprocal(out.block_scale.to(at::kFloat));
  }
  const at::Tensor scaled = at::clamp(data * reciprocal.unsqueeze(-1), -kE2m1Max, kE2m1Max).reshape(hp.sizes());
  out.data = round_e2m1(scaled, o.uniform);
  return out;
}

at::Tensor nvfp4_dequantize(const Nvfp4Tensor& t) {
  at::Tensor scale = t.block_scale.to(at::kFloat);
  if (t.tensor_scale.defined()) scale = t.tensor_scale * scale;
  const at::Tensor blocks = t.data.reshape({t.data.size(0), -1, t.block});
  return (blocks * scale.unsqueeze(-1)).reshape(t.data.sizes()).to(t.hp_dtype);
}

at::Tensor random_hadamard(const at::Tensor& hp, const at::Tensor& signs) {
  constexpr int64_t kSize = 16;
  TORCH_CHECK(hp.dim() == 2 && hp.size(1) % kSize == 0, "random_hadamard: ", hp.sizes(),
              " is not 2-D with a multiple of 16 columns");
  // Sylvester's H16: entry (i, j) is (-1)^popcount(i & j).
  const at::Tensor idx = at::arange(kSize, at::kLong);
  const at::Tensor bits = at::bitwise_and(idx.unsqueeze(1), idx.unsqueeze(0));
  at::Tensor parity = at::zeros_like(bits);
  for (int b = 0; b < 4; ++b) parity = at::bitwise_xor(parity, at::bitwise_and(at::bitwise_right_shift(bits, b), 1));
  const at::Tensor h = (1 - 2 * parity).to(at::kFloat) * 0.25;
  const at::Tensor rht = signs.to(at::kFloat).unsqueeze(1) * h;  // diag(signs) @ H16 / 4
  const at::Tensor blocks = hp.to(at::kFloat).reshape({hp.size(0), -1, kSize});
  return at::matmul(blocks, rht).reshape(hp.sizes()).to(hp.scalar_type());
}

at::Tensor hadamard_signs(int64_t seed) {
  at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(seed));
  const at::Tensor draws = at::rand({16}, gen, at::kFloat);
  return at::where(draws >= 0.5, at::scalar_tensor(1.0), at::scalar_tensor(-1.0));
}

}  // namespace ampbench::fp8
