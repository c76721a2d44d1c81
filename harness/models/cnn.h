#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include "spec/model_sizes.h"

namespace ampbench {

// Conv/BatchNorm/ReLU/pool x2 + linear head over an [in_channels, image,
// image] input. Under autocast the convolutions run in low precision while
// batch norm stays float32.
class CnnImpl : public torch::nn::Cloneable<CnnImpl> {
 public:
  explicit CnnImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(Cnn);

}  // namespace ampbench
