#include "models/cnn.h"

#include <ATen/ops/adaptive_avg_pool2d.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/relu.h>

namespace ampbench {

void CnnImpl::reset() {
  const int64_t c = sizes_.channels;
  using torch::nn::Conv2dOptions;
  conv1_ = register_module("conv1", torch::nn::Conv2d(Conv2dOptions(kCnnInputChannels, c, 3).padding(1)));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(c));
  conv2_ = register_module("conv2", torch::nn::Conv2d(Conv2dOptions(c, 2 * c, 3).padding(1)));
  bn2_ = register_module("bn2", torch::nn::BatchNorm2d(2 * c));
  head_ = register_module("head", torch::nn::Linear(2 * c, sizes_.classes));
}

at::Tensor CnnImpl::forward(const at::Tensor& x) {
  at::Tensor h = at::max_pool2d(at::relu(bn1_(conv1_(x))), {2, 2});
  h = at::relu(bn2_(conv2_(h)));
  h = at::adaptive_avg_pool2d(h, {1, 1}).flatten(1);
  return head_(h);
}

}  // namespace ampbench
