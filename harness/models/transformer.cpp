#include "models/transformer.h"

namespace ampbench {

void TransformerImpl::reset() {
  // Dropout 0: every run must be deterministic for the equivalence checks.
  block_ = register_module(
      "block", torch::nn::TransformerEncoderLayer(
                   torch::nn::TransformerEncoderLayerOptions(sizes_.d_model, sizes_.heads)
                       .dim_feedforward(sizes_.ffn)
                       .dropout(0.0)));
  head_ = register_module("head", torch::nn::Linear(sizes_.d_model, sizes_.classes));
}

at::Tensor TransformerImpl::forward(const at::Tensor& x) {
  // LibTorch's encoder layer takes [seq, batch, d_model].
  const at::Tensor h = block_(x.transpose(0, 1));
  return head_(h.mean(0));
}

}  // namespace ampbench
