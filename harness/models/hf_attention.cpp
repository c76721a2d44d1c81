#include "models/hf_attention.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/full.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <c10/util/MathConstants.h>

#include <limits>

#include <cmath>

namespace ampbench {
namespace {

// torch.finfo(dtype).min.
double lowest(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf: return std::numeric_limits<c10::Half>::lowest();
    case at::kBFloat16: return std::numeric_limits<c10::BFloat16>::lowest();
    case at::kFloat: return std::numeric_limits<float>::lowest();
    case at::kDouble: return std::numeric_limits<double>::lowest();
    default: TORCH_CHECK(false, "attention mask: no floating dtype ", dtype);
  }
}

at::Tensor mask_from(const at::Tensor& allowed, at::ScalarType dtype) {
  const at::Tensor zero = at::zeros({}, allowed.options().dtype(dtype));
  const at::Tensor masked = at::full({}, lowest(dtype), allowed.options().dtype(dtype));
  return at::where(allowed, zero, masked);
}

}  // namespace

at::Tensor eager_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                           double scaling, bool weights_in_value_dtype) {
  at::Tensor w = at::matmul(q, k.transpose(-1, -2)) * scaling;
  if (mask.defined()) w = w + mask;
  w = at::softmax(w, -1);
  if (weights_in_value_dtype) w = w.to(v.scalar_type());
  return at::matmul(w, v).transpose(1, 2);
}

at::Tensor causal_mask(int64_t seq, at::ScalarType dtype, const c10::Device& device) {
  const at::Tensor pos = at::arange(seq, at::TensorOptions().device(device).dtype(at::kLong));
  return mask_from(pos.unsqueeze(0) <= pos.unsqueeze(1), dtype).view({1, 1, seq, seq});
}

at::Tensor padding_mask(const at::Tensor& keep, at::ScalarType dtype) {
  return mask_from(keep, dtype).unsqueeze(1).unsqueeze(1);
}

at::Tensor gelu_new(const at::Tensor& x) {
  const double c = std::sqrt(2.0 / c10::pi<double>);
  // In transformers' order, one statement each: x feeds three ops, whose
  // gradients autograd adds in the reverse order of their creation; in one
  // expression that order would be the compiler's.
  const at::Tensor half_x = x * 0.5;
  const at::Tensor inner = (x + at::pow(x, 3.0) * 0.044715) * c;
  return half_x * (1.0 + at::tanh(inner));
}

}  // namespace ampbench
