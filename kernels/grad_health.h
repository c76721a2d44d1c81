// Gradient health: one pass over a list of gradient tensors that counts what
// float16 would do to them, at a given loss scale.
//
// For every element x (float32, float16 or bfloat16, read as float) the value
// classified is v = double(x) * scale, computed in double so that neither the
// scaling nor the squaring can overflow or round spuriously:
//   nonfinite       v is +-inf or NaN
//   underflow_fp16  v is finite, v != 0 and |v| < 2^-24 (float16's smallest
//                   subnormal). This is the common "values below 2^-24
//                   become zero" criterion; strictly, round-to-nearest-even
//                   flushes only |v| <= 2^-25 to zero and rounds
//                   (2^-25, 2^-24) up to 2^-24, so the count is "below the
//                   smallest non-zero float16", an upper bound of flushes.
//   overflow_fp16   v is finite and |v| > 65504 (float16's largest finite).
//                   Strictly only |v| >= 65520 rounds to inf; the count is
//                   "out of float16's finite range".
//   l2_norm         sqrt(sum of v^2 over the FINITE v), so one inf does not
//                   hide the magnitude of the rest (non-finite values are
//                   counted, not summed). Equals |scale| * ||finite x||_2.
//                   Sums are accumulated in double: the CPU reference
//                   sequentially, the CUDA kernel per thread then by block
//                   tree reductions and double atomics, so the two agree to
//                   ~1e-12 relative, not bitwise (atomic order varies).
//
// Undefined tensors (a parameter whose grad was never populated) count as
// empty: numel 0 and all counts 0. Non-contiguous tensors are read through a
// contiguous copy.
#pragma once

#include <ATen/core/Tensor.h>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

namespace ampbench::kernels {

// float16's smallest positive subnormal (2^-24) and largest finite value.
inline constexpr double kFp16MinSubnormal = 5.9604644775390625e-08;
inline constexpr double kFp16Max = 65504.0;

struct TensorHealth {
  int64_t numel = 0;
  int64_t nonfinite = 0;
  int64_t underflow_fp16 = 0;
  int64_t overflow_fp16 = 0;
  double l2_norm = 0.0;
};

struct GradHealth {
  std::vector<TensorHealth> per_tensor;  // same order as the input list
  TensorHealth total;  // counts summed; l2_norm = sqrt(sum of per-tensor l2^2)
};

// Dispatching version. CUDA tensors go through one fused kernel launch per
// CUDA device (when built with AMPBENCH_KERNELS_CUDA); CPU tensors, and every
// tensor in a build without CUDA kernels, go through grad_health_reference.
// A list may mix devices. Blocks until the counts are on the host.
// Throws c10::Error for an unsupported dtype/layout/device or a non-finite scale.
GradHealth grad_health(const std::vector<at::Tensor>& grads, double scale = 1.0);

// The reference: plain C++ loops on the host (CUDA tensors are copied to the
// CPU first). Same definitions and arithmetic as the kernel.
GradHealth grad_health_reference(const std::vector<at::Tensor>& grads, double scale = 1.0);

// True when this build has the CUDA kernel (AMPBENCH_KERNELS_CUDA); whether a
// device is present is a separate, runtime question.
bool grad_health_has_cuda_kernel();

// {"numel":..,"nonfinite":..,"underflow_fp16":..,"overflow_fp16":..,"l2_norm":..}
void to_json(nlohmann::json& j, const TensorHealth& h);
// {"total": {...}, "per_tensor": [{...}, ...]}
void to_json(nlohmann::json& j, const GradHealth& h);

}  // namespace ampbench::kernels
