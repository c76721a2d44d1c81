#include "models/transformer.h"

#include "models/flops.h"
#include "models/module_model.h"
#include "models/sequence_sizes.h"

namespace ampbench {

void TransformerImpl::reset() {
  // Dropout 0: every run must be deterministic for the equivalence checks.
  block_ = register_module(
      "block", torch::nn::TransformerEncoderLayer(
                   torch::nn::TransformerEncoderLayerOptions(sizes_.d_model, sizes_.heads)
                       .dim_feedforward(sizes_.ffn)
                       .dropout(0.0)));
  head_ = register_module("head", Linear(sizes_.d_model, sizes_.classes));
}

at::Tensor TransformerImpl::forward(const at::Tensor& x) {
  // LibTorch's encoder layer takes [seq, batch, d_model].
  const at::Tensor h = block_(x.transpose(0, 1));
  return head_(h.mean(0));
}


const ModelFamily& transformer_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "transformer";
    f.size_keys = sequence_size_keys();
    f.sizes_refusal = heads_refusal;
    f.sample_shape = sequence_sample_shape;
    f.forward_flops = [](const ModelSizes& s) { return attention_block_flops(s) + linear_flops(s.d_model, s.classes); };
    f.parameters = [](const ModelSizes& s) {
      return attention_block_parameters(s) + static_cast<double>(s.d_model) * s.classes + s.classes;
    };
    // The unfused encoder layer keeps its heads x seq x seq attention weights.
    f.activations = [](const ModelSizes& s) {
      const double seq = s.seq;
      return seq * (8.0 * s.d_model + 2.0 * s.ffn) + 2.0 * s.heads * seq * seq;
    };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, Transformer(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
