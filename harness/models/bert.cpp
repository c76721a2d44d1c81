#include "models/bert.h"

#include <ATen/ops/arange.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/tanh.h>
#include <ATen/ops/zeros_like.h>
#include <torch/nn/init.h>

#include <cmath>

#include "models/flops.h"
#include "models/hf_attention.h"
#include "models/module_model.h"
#include "models/sequence_sizes.h"

namespace ampbench {
namespace {

// BertConfig's defaults that are not sizes.
constexpr double kInitializerRange = 0.02;
constexpr double kLayerNormEps = 1e-12;
constexpr int64_t kTypeVocab = 2;
constexpr int64_t kPadTokenId = 0;

torch::nn::LayerNorm layer_norm(int64_t d) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(kLayerNormEps));
}

// PreTrainedModel._init_weights for nn.Linear.
torch::nn::Linear linear(int64_t in, int64_t out) {
  torch::nn::Linear l(in, out);
  const torch::NoGradGuard no_grad;
  torch::nn::init::normal_(l->weight, 0.0, kInitializerRange);
  torch::nn::init::zeros_(l->bias);
  return l;
}

// ... and for nn.Embedding: the padding row stays zero.
torch::nn::Embedding embedding(int64_t rows, int64_t d, std::optional<int64_t> padding = std::nullopt) {
  torch::nn::EmbeddingOptions options(rows, d);
  if (padding) options.padding_idx(*padding);
  torch::nn::Embedding e(options);
  const torch::NoGradGuard no_grad;
  torch::nn::init::normal_(e->weight, 0.0, kInitializerRange);
  if (padding) e->weight[*padding].zero_();
  return e;
}

// nn.Linear as Python computes it (at::linear): LibTorch's Linear module
// computes a 3-D input as matmul then +bias, which rounds differently under
// autocast.
at::Tensor python_linear(const torch::nn::Linear& l, const at::Tensor& x) { return at::linear(x, l->weight, l->bias); }

}  // namespace

void BertEmbeddingsImpl::reset() {
  word_embeddings_ = register_module("word_embeddings", embedding(sizes_.vocab, sizes_.d_model, kPadTokenId));
  position_embeddings_ = register_module("position_embeddings", embedding(sizes_.seq, sizes_.d_model));
  token_type_embeddings_ = register_module("token_type_embeddings", embedding(kTypeVocab, sizes_.d_model));
  layer_norm_ = register_module("LayerNorm", layer_norm(sizes_.d_model));
}

at::Tensor BertEmbeddingsImpl::forward(const at::Tensor& ids) {
  const at::Tensor positions = at::arange(ids.size(1), ids.options()).unsqueeze(0);
  const at::Tensor embeddings = word_embeddings_(ids) + token_type_embeddings_(at::zeros_like(ids));
  return layer_norm_(embeddings + position_embeddings_(positions));
}

void BertSelfAttentionImpl::reset() {
  query_ = register_module("query", linear(sizes_.d_model, sizes_.d_model));
  key_ = register_module("key", linear(sizes_.d_model, sizes_.d_model));
  value_ = register_module("value", linear(sizes_.d_model, sizes_.d_model));
}

at::Tensor BertSelfAttentionImpl::forward(const at::Tensor& x, const at::Tensor& mask) {
  const int64_t head_dim = sizes_.d_model / sizes_.heads;
  auto heads = [&](const torch::nn::Linear& l) {
    return python_linear(l, x).view({x.size(0), x.size(1), -1, head_dim}).transpose(1, 2);
  };
  const double scaling = std::pow(static_cast<double>(head_dim), -0.5);
  // Query, key, value in this order, as transformers: x's gradient is the
  // sum of their three contributions (and the residual's), which autograd
  // adds in the reverse order of their creation.  As function arguments
  // their order would be the compiler's, and the sum rounded otherwise.
  const at::Tensor q = heads(query_);
  const at::Tensor k = heads(key_);
  const at::Tensor v = heads(value_);
  const at::Tensor a = eager_attention(q, k, v, mask, scaling, /*weights_in_value_dtype=*/false);
  return a.contiguous().reshape({x.size(0), x.size(1), -1}).contiguous();
}

void BertResidualOutputImpl::reset() {
  dense_ = register_module("dense", linear(in_, out_));
  layer_norm_ = register_module("LayerNorm", layer_norm(out_));
}

at::Tensor BertResidualOutputImpl::forward(const at::Tensor& x, const at::Tensor& residual) {
  return layer_norm_(python_linear(dense_, x) + residual);
}

void BertDenseImpl::reset() { dense_ = register_module("dense", linear(in_, out_)); }

at::Tensor BertDenseImpl::forward(const at::Tensor& x) { return python_linear(dense_, x); }

void BertAttentionImpl::reset() {
  self_ = register_module("self", BertSelfAttention(sizes_));
  output_ = register_module("output", BertResidualOutput(sizes_.d_model, sizes_.d_model));
}

void BertLayerImpl::reset() {
  attention_ = register_module("attention", BertAttention(sizes_));
  intermediate_ = register_module("intermediate", BertDense(sizes_.d_model, sizes_.ffn));
  output_ = register_module("output", BertResidualOutput(sizes_.ffn, sizes_.d_model));
}

at::Tensor BertLayerImpl::forward(const at::Tensor& x, const at::Tensor& mask) {
  const at::Tensor a = attention_(x, mask);
  return output_(at::gelu(intermediate_(a)), a);
}

void BertEncoderImpl::reset() {
  layer_ = register_module("layer", torch::nn::ModuleList());
  for (int i = 0; i < sizes_.layers; ++i) layer_->push_back(BertLayer(sizes_));
}

at::Tensor BertEncoderImpl::forward(at::Tensor x, const at::Tensor& mask) {
  for (const auto& l : *layer_) x = l->as<BertLayer>()->forward(x, mask);
  return x;
}

void BertModelImpl::reset() {
  embeddings_ = register_module("embeddings", BertEmbeddings(sizes_));
  encoder_ = register_module("encoder", BertEncoder(sizes_));
  pooler_ = register_module("pooler", BertDense(sizes_.d_model, sizes_.d_model));
}

at::Tensor BertModelImpl::forward(const at::Tensor& ids) {
  const at::Tensor embedded = embeddings_(ids);
  const at::Tensor h = encoder_(embedded, padding_mask(ids != kPadTokenId, embedded.scalar_type()));
  return at::tanh(pooler_(h.select(1, 0)));
}

void BertImpl::reset() {
  bert_ = register_module("bert", BertModel(sizes_));
  classifier_ = register_module("classifier", linear(sizes_.d_model, sizes_.classes));
}

at::Tensor BertImpl::forward(const at::Tensor& ids) { return python_linear(classifier_, bert_(ids)); }

const ModelFamily& bert_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "bert";
    f.input = InputKind::kTokenIds;
    f.small_layernorm_inputs = true;
    f.padded_tokens = true;
    f.size_keys = token_model_size_keys();
    f.sizes_refusal = heads_refusal;
    f.sample_shape = token_sample_shape;
    f.forward_flops = [](const ModelSizes& s) {
      return s.layers * attention_block_flops(s) + linear_flops(s.d_model, s.d_model) +
             linear_flops(s.d_model, s.classes);
    };
    f.parameters = [](const ModelSizes& s) {
      const double d = s.d_model;
      return s.layers * attention_block_parameters(s) + (static_cast<double>(s.vocab) + s.seq + kTypeVocab + 2) * d +
             d * d + d + d * s.classes + s.classes;
    };
    f.activations = [](const ModelSizes& s) {
      return s.layers * eager_attention_layer_activations(s) + 4.0 * s.seq * s.d_model;
    };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, Bert(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
