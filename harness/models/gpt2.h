// transformers' GPT2LMHeadModel (models/gpt2/modeling_gpt2.py), with its
// parameter names, shapes and initialisation, computed op for op as its eager
// attention path computes it: learned position embeddings, pre-norm blocks,
// Conv1D projections (weights stored [in, out]), the tanh GELU, a causal
// mask, and an lm_head tied to the token embedding (one parameter, used
// twice). The output is the logits over the vocabulary at every position.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>

#include "spec/model_sizes.h"

namespace ampbench {

// transformers.pytorch_utils.Conv1D: a linear layer with its weight
// transposed, computed with addmm.
class Conv1DImpl : public torch::nn::Cloneable<Conv1DImpl> {
 public:
  Conv1DImpl(int64_t in, int64_t out, double init_std) : in_(in), out_(out), init_std_(init_std) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  int64_t in_, out_;
  double init_std_;
  at::Tensor weight_, bias_;
};
TORCH_MODULE(Conv1D);

class Gpt2AttentionImpl : public torch::nn::Cloneable<Gpt2AttentionImpl> {
 public:
  explicit Gpt2AttentionImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask);

 private:
  ModelSizes sizes_;
  Conv1D c_attn_{nullptr}, c_proj_{nullptr};
};
TORCH_MODULE(Gpt2Attention);

class Gpt2MlpImpl : public torch::nn::Cloneable<Gpt2MlpImpl> {
 public:
  explicit Gpt2MlpImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  Conv1D c_fc_{nullptr}, c_proj_{nullptr};
};
TORCH_MODULE(Gpt2Mlp);

class Gpt2BlockImpl : public torch::nn::Cloneable<Gpt2BlockImpl> {
 public:
  explicit Gpt2BlockImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask);

 private:
  ModelSizes sizes_;
  torch::nn::LayerNorm ln_1_{nullptr}, ln_2_{nullptr};
  Gpt2Attention attn_{nullptr};
  Gpt2Mlp mlp_{nullptr};
};
TORCH_MODULE(Gpt2Block);

// GPT2Model: embeddings, blocks, final LayerNorm.
class Gpt2ModelImpl : public torch::nn::Cloneable<Gpt2ModelImpl> {
 public:
  explicit Gpt2ModelImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  // ids: [batch, seq] int64 -> hidden states [batch, seq, d_model].
  at::Tensor forward(const at::Tensor& ids);
  const at::Tensor& token_embedding() const { return wte_->weight; }

 private:
  ModelSizes sizes_;
  torch::nn::Embedding wte_{nullptr}, wpe_{nullptr};
  torch::nn::ModuleList h_{nullptr};
  torch::nn::LayerNorm ln_f_{nullptr};
};
TORCH_MODULE(Gpt2Model);

// GPT2LMHeadModel: the logits at every position through the tied lm_head.
class Gpt2Impl : public torch::nn::Cloneable<Gpt2Impl> {
 public:
  explicit Gpt2Impl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  // ids: [batch, seq] int64 -> logits [batch, seq, vocab].
  at::Tensor forward(const at::Tensor& ids);

 private:
  ModelSizes sizes_;
  Gpt2Model transformer_{nullptr};
};
TORCH_MODULE(Gpt2);

}  // namespace ampbench
