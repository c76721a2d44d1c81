#include "models/vit.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/dropout.h>

#include <cmath>

#include "models/flops.h"
#include "models/image_sizes.h"
#include "models/module_model.h"
#include "models/sequence_sizes.h"

namespace ampbench {
namespace {

constexpr double kLayerNormEps = 1e-6;

torch::nn::LayerNorm layer_norm(int64_t d) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d}).eps(kLayerNormEps));
}

// torchvision's MLPBlock: xavier-uniform weights, biases drawn at 1e-6.
Linear mlp_linear(int64_t in, int64_t out) {
  Linear l(in, out);
  const torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(l->weight);
  torch::nn::init::normal_(l->bias, 0.0, 1e-6);
  return l;
}

// nn.init.trunc_normal_ with mean 0 and its default absolute bounds [-2, 2]
// (LibTorch has no counterpart): inverse-CDF sampling, as PyTorch does it.
void trunc_normal(const at::Tensor& t, double std) {
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double lo = cdf(-2.0 / std), hi = cdf(2.0 / std);
  t.uniform_(2 * lo - 1, 2 * hi - 1).erfinv_().mul_(std * std::sqrt(2.0)).clamp_(-2.0, 2.0);
}

// Patches of the image plus the class token.
int64_t tokens(const ModelSizes& s) {
  const int64_t side = s.image / s.patch;
  return side * side + 1;
}

// torchvision's MLPBlock through F.linear, i.e. at::linear. LibTorch's Linear
// module takes a 3-D input through matmul and then `+= bias` in the bias's
// own dtype, which under autocast rounds twice where at::linear's fused
// addmm rounds once: the bf16 replays then differ in the last bit. The
// dropouts (indices 2 and 4) have p = 0.
at::Tensor mlp_forward(const torch::nn::Sequential& mlp, const at::Tensor& x) {
  auto& fc1 = *mlp->ptr(0)->as<Linear>();
  auto& fc2 = *mlp->ptr(3)->as<Linear>();
  return fc2.f_linear(at::gelu(fc1.f_linear(x)));
}

}  // namespace

void VitSelfAttentionImpl::reset() {
  const int64_t d = sizes_.d_model;
  in_proj_weight_ = register_parameter("in_proj_weight", torch::empty({3 * d, d}));
  in_proj_bias_ = register_parameter("in_proj_bias", torch::zeros({3 * d}));
  out_proj_ = register_module("out_proj", Linear(d, d));
  // torchvision's attention is torch.nn.MultiheadAttention, whose forward
  // passes out_proj.weight to F.multi_head_attention_forward: torchao's
  // Float8Linear swap of out_proj never runs, so neither does ours.
  out_proj_->keep_in_own_precision(
      "read by weight in the attention (torch.nn.MultiheadAttention's out_proj), which an FP8 swap does not reach");
  const torch::NoGradGuard no_grad;
  torch::nn::init::xavier_uniform_(in_proj_weight_);
  torch::nn::init::zeros_(out_proj_->bias);
}

at::Tensor VitSelfAttentionImpl::forward(const at::Tensor& x) {
  const at::Tensor q_in = x.transpose(1, 0);  // [seq, batch, d]
  const int64_t seq = q_in.size(0), batch = q_in.size(1), d = q_in.size(2), heads = sizes_.heads, hd = d / heads;
  const at::Tensor proj = at::linear(q_in, in_proj_weight_, in_proj_bias_)
                              .unflatten(-1, {3, d})
                              .unsqueeze(0)
                              .transpose(0, -2)
                              .squeeze(-2)
                              .contiguous();
  auto split_heads = [&](const at::Tensor& t) {
    return t.view({seq, batch * heads, hd}).transpose(0, 1).view({batch, heads, seq, hd});
  };
  at::Tensor a = at::scaled_dot_product_attention(split_heads(proj[0]), split_heads(proj[1]), split_heads(proj[2]));
  a = a.permute({2, 0, 1, 3}).contiguous().view({batch * seq, d});
  a = out_proj_->f_linear(a);
  return a.view({seq, batch, a.size(1)}).transpose(1, 0);
}

void VitEncoderBlockImpl::reset() {
  ln_1_ = register_module("ln_1", layer_norm(sizes_.d_model));
  self_attention_ = register_module("self_attention", VitSelfAttention(sizes_));
  ln_2_ = register_module("ln_2", layer_norm(sizes_.d_model));
  // torchvision.ops.MLP: Linear, GELU, Dropout, Linear, Dropout (indices 0-4).
  // Each Linear draws its weights from the generator, so the order of the
  // draws is fixed here: the second first. As arguments of one call the
  // order was the compiler's; GCC drew the second first, and every ViT
  // figure of the calibration record (docs/calibration.md) was measured so.
  Linear fc2 = mlp_linear(sizes_.ffn, sizes_.d_model);
  Linear fc1 = mlp_linear(sizes_.d_model, sizes_.ffn);
  mlp_ = register_module("mlp", torch::nn::Sequential(fc1, torch::nn::GELU(), torch::nn::Dropout(0.0), fc2,
                                                     torch::nn::Dropout(0.0)));
}

at::Tensor VitEncoderBlockImpl::forward(const at::Tensor& input) {
  const at::Tensor x = self_attention_(ln_1_(input)) + input;
  return x + mlp_forward(mlp_, ln_2_(x));
}

void VitLayersImpl::reset() {
  blocks_.clear();
  for (int i = 0; i < sizes_.layers; ++i)
    blocks_.push_back(register_module("encoder_layer_" + std::to_string(i), VitEncoderBlock(sizes_)));
}

at::Tensor VitLayersImpl::forward(at::Tensor x) {
  for (auto& block : blocks_) x = block(x);
  return x;
}

void VitHeadsImpl::reset() {
  head_ = register_module("head", Linear(sizes_.d_model, sizes_.classes));
  const torch::NoGradGuard no_grad;  // torchvision zero-initialises the head
  torch::nn::init::zeros_(head_->weight);
  torch::nn::init::zeros_(head_->bias);
}

void VitEncoderImpl::reset() {
  pos_embedding_ = register_parameter("pos_embedding", torch::empty({1, tokens(sizes_), sizes_.d_model}));
  layers_ = register_module("layers", VitLayers(sizes_));
  ln_ = register_module("ln", layer_norm(sizes_.d_model));
  const torch::NoGradGuard no_grad;
  torch::nn::init::normal_(pos_embedding_, 0.0, 0.02);
}

at::Tensor VitEncoderImpl::forward(const at::Tensor& x) { return ln_(layers_(x + pos_embedding_)); }

void VitImpl::reset() {
  const int64_t d = sizes_.d_model, p = sizes_.patch;
  class_token_ = register_parameter("class_token", torch::zeros({1, 1, d}));
  conv_proj_ = register_module("conv_proj", torch::nn::Conv2d(torch::nn::Conv2dOptions(kImageChannels, d, p).stride(p)));
  encoder_ = register_module("encoder", VitEncoder(sizes_));
  heads_ = register_module("heads", VitHeads(sizes_));
  const torch::NoGradGuard no_grad;
  const double fan_in = static_cast<double>(kImageChannels * p * p);
  trunc_normal(conv_proj_->weight, std::sqrt(1.0 / fan_in));
  torch::nn::init::zeros_(conv_proj_->bias);
}

at::Tensor VitImpl::forward(const at::Tensor& x) {
  const int64_t n = x.size(0);
  at::Tensor h = conv_proj_(x);
  h = h.reshape({n, sizes_.d_model, h.size(2) * h.size(3)}).permute({0, 2, 1});
  h = at::cat({class_token_.expand({n, -1, -1}), h}, 1);
  return heads_(encoder_(h).select(1, 0));
}

const ModelFamily& vit_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "vit";
    f.size_keys = {{"image", &ModelSizes::image}, {"patch", &ModelSizes::patch}, {"d_model", &ModelSizes::d_model},
                   {"heads", &ModelSizes::heads}, {"ffn", &ModelSizes::ffn}, {"layers", &ModelSizes::layers}};
    // torchvision's attention is scaled_dot_product_attention, whose fused
    // kernels have no double backward.
    f.first_order_only = "it attends through scaled_dot_product_attention, whose fused kernels have no double backward";
    f.sizes_refusal = [](const ModelSizes& s) -> std::pair<std::string, std::string> {
      if (s.image % s.patch != 0) return {"patch", "must divide image"};
      return heads_refusal(s);
    };
    f.sample_shape = [](const ModelSizes& s) { return std::vector<int64_t>{kImageChannels, s.image, s.image}; };
    f.forward_flops = [](const ModelSizes& s) {
      ModelSizes seq = s;
      seq.seq = static_cast<int>(tokens(s));
      const double patches = tokens(s) - 1;
      return patches * linear_flops(kImageChannels * s.patch * s.patch, s.d_model) +
             s.layers * attention_block_flops(seq) + linear_flops(s.d_model, s.classes);
    };
    f.parameters = [](const ModelSizes& s) {
      const double d = s.d_model;
      return (kImageChannels * s.patch * s.patch + 1.0) * d + d + tokens(s) * d +
             s.layers * attention_block_parameters(s) + 2 * d + d * s.classes + s.classes;
    };
    f.activations = [](const ModelSizes& s) {
      const double seq = tokens(s);
      return s.layers * seq * (10.0 * s.d_model + 3.0 * s.ffn) + 2.0 * seq * s.d_model;
    };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, Vit(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
