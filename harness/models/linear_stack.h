#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/linear.h>

#include <vector>

#include "spec/model_sizes.h"

namespace ampbench {

// torch.nn.Sequential of `layers` Linear layers without activations
// (in_features -> hidden -> ... -> classes), named "0", "1", ...: with two
// layers of 8, the model of PyTorch's own grad-scaling tests
// (_create_scaling_models_optimizers).
class LinearStackImpl : public torch::nn::Cloneable<LinearStackImpl> {
 public:
  explicit LinearStackImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  std::vector<torch::nn::Linear> layers_;
};
TORCH_MODULE(LinearStack);

}  // namespace ampbench
