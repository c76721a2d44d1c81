#include "models/cnn.h"

#include "models/flops.h"
#include "models/module_model.h"

#include <ATen/ops/adaptive_avg_pool2d.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/relu.h>

namespace ampbench {

void CnnImpl::reset() {
  const int64_t c = sizes_.channels;
  using torch::nn::Conv2dOptions;
  conv1_ = register_module("conv1", torch::nn::Conv2d(Conv2dOptions(sizes_.in_channels, c, 3).padding(1)));
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


const ModelFamily& cnn_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "cnn";
    f.size_keys = {{"channels", &ModelSizes::channels}, {"image", &ModelSizes::image}};
    f.optional_size_keys = {{"in_channels", &ModelSizes::in_channels}};
    f.reads_channels_last = true;
    f.sample_shape = [](const ModelSizes& s) { return std::vector<int64_t>{s.in_channels, s.image, s.image}; };
    f.forward_flops = [](const ModelSizes& s) {
      const double c = s.channels;
      // conv1 at full size, a 2x2 max-pool, conv2 at half size, pooled head.
      return conv3x3_flops(s.in_channels, c, s.image) + conv3x3_flops(c, 2 * c, s.image / 2) +
             linear_flops(2 * c, s.classes);
    };
    f.parameters = [](const ModelSizes& s) {
      const double in = s.in_channels, ch = s.channels, c = s.classes;
      // Convolutions with biases, two BatchNorms (weight and bias), the head.
      return in * ch * 9 + ch + ch * 2 * ch * 9 + 2 * ch + 2 * ch + 4 * ch + 2 * ch * c + c;
    };
    f.activations = [](const ModelSizes& s) {
      return static_cast<double>(s.image) * s.image * (s.in_channels + 6.0 * s.channels);
    };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      Model m = module_model(me, Cnn(s), d);
      return s.channels_last ? to_channels_last(std::move(m)) : m;
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
