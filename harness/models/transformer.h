#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/transformerlayer.h>

#include "models/linear.h"
#include "spec/model_sizes.h"

namespace ampbench {

// One Transformer encoder block (attention + feed-forward, LayerNorm) over a
// sequence of feature vectors, mean-pooled into a classifier. Under autocast
// the projections run in low precision; softmax and LayerNorm stay float32.
class TransformerImpl : public torch::nn::Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);  // x: [batch, seq, d_model]

 private:
  ModelSizes sizes_;
  torch::nn::TransformerEncoderLayer block_{nullptr};
  Linear head_{nullptr};
};
TORCH_MODULE(Transformer);

}  // namespace ampbench
