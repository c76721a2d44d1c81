#include "models/decoder.h"

#include "models/flops.h"
#include "models/module_model.h"
#include "models/sequence_sizes.h"

#include <ATen/SDPBackend.h>
#include <ATen/ops/_fused_sdp_choice.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/scaled_dot_product_attention.h>

namespace ampbench {

void DecoderBlockImpl::reset() {
  const int64_t d = sizes_.d_model;
  ln1_ = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  qkv_ = register_module("qkv", Linear(d, 3 * d));
  proj_ = register_module("proj", Linear(d, d));
  ln2_ = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  fc1_ = register_module("fc1", Linear(d, sizes_.ffn));
  fc2_ = register_module("fc2", Linear(sizes_.ffn, d));
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
  head_ = register_module("head", Linear(sizes_.d_model, sizes_.classes));
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


const ModelFamily& decoder_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "decoder";
    f.size_keys = sequence_size_keys();
    f.size_keys.emplace_back("layers", &ModelSizes::layers);
    f.sizes_refusal = heads_refusal;
    f.sample_shape = sequence_sample_shape;
    f.forward_flops = [](const ModelSizes& s) {
      return s.layers * attention_block_flops(s) + linear_flops(s.d_model, s.classes);
    };
    f.parameters = [](const ModelSizes& s) {
      return s.layers * attention_block_parameters(s) + 2.0 * s.d_model + static_cast<double>(s.d_model) * s.classes +
             s.classes;
    };
    // Fused attention (flash and friends keep no seq x seq matrix); each
    // block holds its own activations.
    f.activations = [](const ModelSizes& s) { return s.layers * s.seq * (10.0 * s.d_model + 2.0 * s.ffn); };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      Model m = module_model(me, Decoder(s), d);
      m.attention_backend = [impl = std::static_pointer_cast<DecoderImpl>(m.module)](const at::Tensor& x) {
        return impl->attention_backend(x);
      };
      return m;
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
