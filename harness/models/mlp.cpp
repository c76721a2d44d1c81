#include "models/mlp.h"

#include <ATen/ops/relu.h>

namespace ampbench {

void MlpImpl::reset() {
  fc1_ = register_module("fc1", torch::nn::Linear(sizes_.in_features, sizes_.hidden));
  fc2_ = register_module("fc2", torch::nn::Linear(sizes_.hidden, sizes_.hidden));
  head_ = register_module("head", torch::nn::Linear(sizes_.hidden, sizes_.classes));
}

at::Tensor MlpImpl::forward(const at::Tensor& x) {
  return head_(at::relu(fc2_(at::relu(fc1_(x)))));
}

}  // namespace ampbench
