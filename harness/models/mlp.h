#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>

#include "models/linear.h"
#include "spec/model_sizes.h"

namespace ampbench {

// Linear/ReLU x2 + classifier head: matmul-bound, the case autocast helps most.
class MlpImpl : public torch::nn::Cloneable<MlpImpl> {
 public:
  explicit MlpImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  Linear fc1_{nullptr}, fc2_{nullptr}, head_{nullptr};
};
TORCH_MODULE(Mlp);

}  // namespace ampbench
