#include "models/decoder.h"

#include <ATen/SDPBackend.h>
#include <ATen/ops/_fused_sdp_choice.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/scaled_dot_product_attention.h>

namespace ampbench {

void DecoderBlockImpl::reset() {
  const int64_t d = sizes_.d_model;
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  qkv_ = register_module("qkv", torch::nn::Linear(d, 3 * d));
  proj_ = register_module("proj", torch::nn::Linear(d, d));
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  fc1_ = register_module("fc1", torch::nn::Linear(d, sizes_.ffn));
  fc2_ = register_module("fc2", torch::nn::Linear(sizes_.ffn, d));
}

std::vector<at::Tensor> DecoderBlockImpl::qkv(const at::Tensor& x) {
  const int64_t b = x.size(0), s = x.size(1), h = sizes_.heads, hd = sizes_.d_model / sizes_.heads;
  std::vector<at::Tensor> out = qkv_(ln1_(x)).view({b, s, 3, h, hd}).unbind(2);
  for (at::Tensor& t : out) t = t.transpose(1, 2);
  return out;
}

at::Tensor DecoderBlockImpl::forward(const at::Tensor& x) {
  const std::vector<at::Tensor> q_k_v = qkv(x);
  // Dropout 0 (the equivalence checks need determinism); causal mask by flag,
  // so flash and memory-efficient kernels skip the masked tiles.
  const at::Tensor a = at::scaled_dot_product_attention(q_k_v[0], q_k_v[1], q_k_v[2], {}, 0.0, /*is_causal=*/true);
  const at::Tensor h = x + proj_(a.transpose(1, 2).reshape(x.sizes()));
  return h + fc2_(at::gelu(fc1_(ln2_(h))));
}

void DecoderImpl::reset() {
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (int i = 0; i < sizes_.layers; ++i) blocks_->push_back(DecoderBlock(sizes_));
  ln_f_ = register_module("ln_f", torch::nn::LayerNorm(torch::nn::LayerNormOptions({sizes_.d_model})));
  head_ = register_module("head", torch::nn::Linear(sizes_.d_model, sizes_.classes));
}

at::Tensor DecoderImpl::forward(const at::Tensor& x) {
  at::Tensor h = x;
  for (const auto& block : *blocks_) h = block->as<DecoderBlock>()->forward(h);
  return head_(ln_f_(h.select(1, -1)));
}

std::string DecoderImpl::attention_backend(const at::Tensor& x) {
  const std::vector<at::Tensor> q_k_v = blocks_[0]->as<DecoderBlock>()->qkv(x);
  switch (static_cast<at::SDPBackend>(at::_fused_sdp_choice(q_k_v[0], q_k_v[1], q_k_v[2], {}, 0.0, true))) {
    case at::SDPBackend::flash_attention: return "flash";
    case at::SDPBackend::efficient_attention: return "memory_efficient";
    case at::SDPBackend::cudnn_attention: return "cudnn";
    case at::SDPBackend::math: return "math";
    case at::SDPBackend::overrideable: return "overrideable";
    case at::SDPBackend::error: break;
  }
  return "none";
}

}  // namespace ampbench
