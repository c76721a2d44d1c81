// The casts and the scaled GEMM under every FP8 recipe, with torchao's
// numerics (torchao/float8: float8_utils.py, float8_training_tensor.py,
// float8_ops.py), op for op, so that a Float8Linear replays them bit for bit.
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace ampbench::fp8 {

// 8-bit data and the scale it was multiplied by (data = cast(hp * scale)):
// a 0-dim float32 scale (tensorwise), or one per row or column with the
// reduced dimension kept (rowwise: [M, 1] or [1, N]).
struct Fp8Tensor {
  at::Tensor data;
  at::Tensor scale;
  // A transposed view, as torchao's aten.t on a Float8TrainingTensor.
  Fp8Tensor t() const { return {data.t(), scale.dim() > 1 ? scale.t() : scale}; }
};

// scale = fp8_max / max(amax, 1e-12), in float64 and rounded to float32, as
// torchao's amax_to_scale (whose `max / amax` is Python's reciprocal-then-
// multiply); pow2 rounds it down to a power of two (the rowwise recipe).
at::Tensor amax_to_scale(const at::Tensor& amax, at::ScalarType fp8, bool pow2);

// max |hp| over the tensor (no axis) or along `axis` with the dimension kept.
at::Tensor amax_of(const at::Tensor& hp, std::optional<int64_t> axis);

// cast(hp.float() * scale), clamped to +-fp8_max first unless !saturate
// (then values past the range become NaN in e4m3fn and inf in e5m2).
Fp8Tensor cast_with_scale(const at::Tensor& hp, const at::Tensor& scale, at::ScalarType fp8, bool saturate);

// The scale from hp's own amax, then the cast (torchao's dynamic scaling).
Fp8Tensor cast_dynamic(const at::Tensor& hp, at::ScalarType fp8, std::optional<int64_t> axis, bool pow2,
                       bool saturate);

// a @ b in `out_dtype`, undoing both scales, as torchao's float8 mm: a made
// row-major and b column-major, the reciprocal scales passed to _scaled_mm;
// rowwise operands without fast accumulation go through a unit-scale GEMM in
// bfloat16 and the outer product of the reciprocal scales after it (the CPU
// kernel takes per-tensor scales only). Autocast does not apply to it.
at::Tensor scaled_mm(const Fp8Tensor& a, const Fp8Tensor& b, at::ScalarType out_dtype, bool fast_accum);

}  // namespace ampbench::fp8
