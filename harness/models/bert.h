// transformers' BertForSequenceClassification (models/bert/modeling_bert.py),
// with its parameter names, shapes and initialisation, computed op for op as
// its eager attention path computes it: word, position and token-type
// embeddings (token type 0, as when a caller passes none), post-norm layers
// with LayerNorm eps 1e-12, the exact GELU, a padding mask from the ids
// (padding is id 0, BERT's pad_token_id), the tanh pooler on the first token
// and the classifier.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include "spec/model_sizes.h"

namespace ampbench {

class BertEmbeddingsImpl : public torch::nn::Cloneable<BertEmbeddingsImpl> {
 public:
  explicit BertEmbeddingsImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& ids);

 private:
  ModelSizes sizes_;
  torch::nn::Embedding word_embeddings_{nullptr}, position_embeddings_{nullptr}, token_type_embeddings_{nullptr};
  torch::nn::LayerNorm layer_norm_{nullptr};
};
TORCH_MODULE(BertEmbeddings);

class BertSelfAttentionImpl : public torch::nn::Cloneable<BertSelfAttentionImpl> {
 public:
  explicit BertSelfAttentionImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask);

 private:
  ModelSizes sizes_;
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr};
};
TORCH_MODULE(BertSelfAttention);

// BertSelfOutput and BertOutput: LayerNorm(dense(x) + residual).
class BertResidualOutputImpl : public torch::nn::Cloneable<BertResidualOutputImpl> {
 public:
  BertResidualOutputImpl(int64_t in, int64_t out) : in_(in), out_(out) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& residual);

 private:
  int64_t in_, out_;
  torch::nn::Linear dense_{nullptr};
  torch::nn::LayerNorm layer_norm_{nullptr};
};
TORCH_MODULE(BertResidualOutput);

// BertIntermediate and BertPooler: one dense layer (their activations differ).
class BertDenseImpl : public torch::nn::Cloneable<BertDenseImpl> {
 public:
  BertDenseImpl(int64_t in, int64_t out) : in_(in), out_(out) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  int64_t in_, out_;
  torch::nn::Linear dense_{nullptr};
};
TORCH_MODULE(BertDense);

class BertAttentionImpl : public torch::nn::Cloneable<BertAttentionImpl> {
 public:
  explicit BertAttentionImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask) { return output_(self_(x, mask), x); }

 private:
  ModelSizes sizes_;
  BertSelfAttention self_{nullptr};
  BertResidualOutput output_{nullptr};
};
TORCH_MODULE(BertAttention);

class BertLayerImpl : public torch::nn::Cloneable<BertLayerImpl> {
 public:
  explicit BertLayerImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x, const at::Tensor& mask);

 private:
  ModelSizes sizes_;
  BertAttention attention_{nullptr};
  BertDense intermediate_{nullptr};
  BertResidualOutput output_{nullptr};
};
TORCH_MODULE(BertLayer);

class BertEncoderImpl : public torch::nn::Cloneable<BertEncoderImpl> {
 public:
  explicit BertEncoderImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(at::Tensor x, const at::Tensor& mask);

 private:
  ModelSizes sizes_;
  torch::nn::ModuleList layer_{nullptr};
};
TORCH_MODULE(BertEncoder);

// BertModel: embeddings, encoder, pooler; returns the pooled first token.
class BertModelImpl : public torch::nn::Cloneable<BertModelImpl> {
 public:
  explicit BertModelImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& ids);

 private:
  ModelSizes sizes_;
  BertEmbeddings embeddings_{nullptr};
  BertEncoder encoder_{nullptr};
  BertDense pooler_{nullptr};
};
TORCH_MODULE(BertModel);

class BertImpl : public torch::nn::Cloneable<BertImpl> {
 public:
  explicit BertImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  // ids: [batch, seq] int64, 0 = padding -> logits [batch, classes].
  at::Tensor forward(const at::Tensor& ids);

 private:
  ModelSizes sizes_;
  BertModel bert_{nullptr};
  torch::nn::Linear classifier_{nullptr};
};
TORCH_MODULE(Bert);

}  // namespace ampbench
