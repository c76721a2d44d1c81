// The pieces of transformers' eager attention that GPT-2 and BERT share,
// written op for op as transformers computes them, so that the C++ modules
// and the canonical Python ones round alike under autocast. Eager (not
// scaled_dot_product_attention): it is the only attention whose backward can
// itself be differentiated on every device, which the gradient penalty
// workload needs.
#pragma once

#include <ATen/core/Tensor.h>

namespace ampbench {

// eager_attention_forward: softmax(q k^T * scaling + mask) in the scores'
// dtype, times v; returned as [batch, seq, heads, head_dim]. GPT-2's casts the
// probabilities to v's dtype before the product, BERT's leaves that to
// autocast.
at::Tensor eager_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                           double scaling, bool weights_in_value_dtype);

// masking_utils' eager masks: 0 where a query may attend to a key, the
// lowest finite value of `dtype` (the embeddings' dtype) elsewhere.
// Causal: [1, 1, seq, seq]. Padding: [batch, 1, 1, seq] from `keep`
// ([batch, seq], true for a real token).
at::Tensor causal_mask(int64_t seq, at::ScalarType dtype, const c10::Device& device);
at::Tensor padding_mask(const at::Tensor& keep, at::ScalarType dtype);

// ACT2FN["gelu_new"] (GPT-2): the tanh form, written out as transformers
// writes it rather than at::gelu(approximate="tanh"), which rounds differently.
at::Tensor gelu_new(const at::Tensor& x);

}  // namespace ampbench
