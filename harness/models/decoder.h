// A GPT-style decoder stack for the large tier: `layers` pre-LayerNorm
// blocks of causal self-attention (at::scaled_dot_product_attention, so the
// fastest backend the device has runs: flash, memory-efficient, cuDNN or
// math) and a GELU feed-forward, then a final LayerNorm and a classifier on
// the last position. Inputs are already d_model vectors (no embedding
// table): the data pipeline stays the one every model shares.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <string>

#include "models/linear.h"
#include "spec/model_sizes.h"

namespace ampbench {

class DecoderBlockImpl : public torch::nn::Cloneable<DecoderBlockImpl> {
 public:
  explicit DecoderBlockImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);  // x: [batch, seq, d_model]
  // The attention inputs of `x`, [batch, heads, seq, head_dim] each.
  std::vector<at::Tensor> qkv(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  torch::nn::LayerNorm ln1_{nullptr}, ln2_{nullptr};
  Linear qkv_{nullptr}, proj_{nullptr}, fc1_{nullptr}, fc2_{nullptr};
};
TORCH_MODULE(DecoderBlock);

class DecoderImpl : public torch::nn::Cloneable<DecoderImpl> {
 public:
  explicit DecoderImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);  // x: [batch, seq, d_model]
  // Which kernel scaled_dot_product_attention picks for this model's
  // attention on `x` (under the current autocast state): "flash",
  // "memory_efficient", "cudnn", "math", or "overrideable".
  std::string attention_backend(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
  Linear head_{nullptr};
};
TORCH_MODULE(Decoder);

}  // namespace ampbench
