#include "models/gpt2.h"

#include <ATen/ops/addmm.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/linear.h>
#include <torch/nn/init.h>

#include <cmath>

#include "models/flops.h"
#include "models/hf_attention.h"
#include "models/module_model.h"
#include "models/sequence_sizes.h"

namespace ampbench {
namespace {

// GPT2Config's defaults that are not sizes.
constexpr double kInitializerRange = 0.02;
constexpr double kLayerNormEps = 1e-5;

torch::nn::LayerNorm layer_norm(int64_t d) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(kLayerNormEps));
}

// The residual projections' scaled initialisation (the GPT-2 paper's 1/sqrt(N)
// over N = 2 residual paths per block).
double residual_std(const ModelSizes& s) { return kInitializerRange / std::sqrt(2.0 * s.layers); }

}  // namespace

void Conv1DImpl::reset() {
  weight_ = register_parameter("weight", torch::empty({in_, out_}));
  bias_ = register_parameter("bias", torch::zeros({out_}));
  const torch::NoGradGuard no_grad;
  torch::nn::init::normal_(weight_, 0.0, init_std_);
}

at::Tensor Conv1DImpl::forward(const at::Tensor& x) {
  std::vector<int64_t> out_shape = x.sizes().vec();
  out_shape.back() = out_;
  return at::addmm(bias_, x.view({-1, x.size(-1)}), weight_).view(out_shape);
}

void Gpt2AttentionImpl::reset() {
  const int64_t d = sizes_.d_model;
  c_attn_ = register_module("c_attn", Conv1D(d, 3 * d, kInitializerRange));
  c_proj_ = register_module("c_proj", Conv1D(d, d, residual_std(sizes_)));
}

at::Tensor Gpt2AttentionImpl::forward(const at::Tensor& x, const at::Tensor& mask) {
  const int64_t head_dim = sizes_.d_model / sizes_.heads;
  std::vector<at::Tensor> q_k_v = c_attn_(x).split(sizes_.d_model, 2);
  for (at::Tensor& t : q_k_v) t = t.view({x.size(0), x.size(1), -1, head_dim}).transpose(1, 2);
  const double scaling = std::pow(static_cast<double>(head_dim), -0.5);
  const at::Tensor a = eager_attention(q_k_v[0], q_k_v[1], q_k_v[2], mask, scaling, /*weights_in_value_dtype=*/true);
  return c_proj_(a.reshape({x.size(0), x.size(1), -1}).contiguous());
}

void Gpt2MlpImpl::reset() {
  c_fc_ = register_module("c_fc", Conv1D(sizes_.d_model, sizes_.ffn, kInitializerRange));
  c_proj_ = register_module("c_proj", Conv1D(sizes_.ffn, sizes_.d_model, residual_std(sizes_)));
}

at::Tensor Gpt2MlpImpl::forward(const at::Tensor& x) { return c_proj_(gelu_new(c_fc_(x))); }

void Gpt2BlockImpl::reset() {
  ln_1_ = register_module("ln_1", layer_norm(sizes_.d_model));
  attn_ = register_module("attn", Gpt2Attention(sizes_));
  ln_2_ = register_module("ln_2", layer_norm(sizes_.d_model));
  mlp_ = register_module("mlp", Gpt2Mlp(sizes_));
}

at::Tensor Gpt2BlockImpl::forward(const at::Tensor& x, const at::Tensor& mask) {
  const at::Tensor h = attn_(ln_1_(x), mask) + x;
  return h + mlp_(ln_2_(h));
}

void Gpt2ModelImpl::reset() {
  wte_ = register_module("wte", torch::nn::Embedding(sizes_.vocab, sizes_.d_model));
  wpe_ = register_module("wpe", torch::nn::Embedding(sizes_.seq, sizes_.d_model));
  h_ = register_module("h", torch::nn::ModuleList());
  for (int i = 0; i < sizes_.layers; ++i) h_->push_back(Gpt2Block(sizes_));
  ln_f_ = register_module("ln_f", layer_norm(sizes_.d_model));
  const torch::NoGradGuard no_grad;
  torch::nn::init::normal_(wte_->weight, 0.0, kInitializerRange);
  torch::nn::init::normal_(wpe_->weight, 0.0, kInitializerRange);
}

at::Tensor Gpt2ModelImpl::forward(const at::Tensor& ids) {
  const at::Tensor positions = at::arange(ids.size(1), ids.options()).unsqueeze(0);
  const at::Tensor embeds = wte_(ids);
  at::Tensor h = embeds + wpe_(positions);
  const at::Tensor mask = causal_mask(ids.size(1), embeds.scalar_type(), ids.device());
  for (const auto& block : *h_) h = block->as<Gpt2Block>()->forward(h, mask);
  return ln_f_(h);
}

void Gpt2Impl::reset() { transformer_ = register_module("transformer", Gpt2Model(sizes_)); }

at::Tensor Gpt2Impl::forward(const at::Tensor& ids) {
  // The tied lm_head: nn.Linear(d_model, vocab, bias=False) whose weight is wte's.
  return at::linear(transformer_->forward(ids), transformer_->token_embedding());
}

const ModelFamily& gpt2_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "gpt2";
    f.input = InputKind::kTokenIds;
    f.small_layernorm_inputs = true;
    f.target = TargetKind::kNextToken;
    f.size_keys = token_model_size_keys();
    f.sizes_refusal = heads_refusal;
    f.sample_shape = token_sample_shape;
    f.forward_flops = [](const ModelSizes& s) {
      return s.layers * attention_block_flops(s) + s.seq * linear_flops(s.d_model, s.vocab);
    };
    f.parameters = [](const ModelSizes& s) {
      return s.layers * attention_block_parameters(s) + (static_cast<double>(s.vocab) + s.seq + 2.0) * s.d_model;
    };
    // Besides the layers, the logits: seq x vocab.
    f.activations = [](const ModelSizes& s) {
      return s.layers * eager_attention_layer_activations(s) + 2.0 * s.seq * s.vocab;
    };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, Gpt2(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
