#include "models/resnet.h"

#include <ATen/ops/adaptive_avg_pool2d.h>
#include <ATen/ops/max_pool2d.h>
#include <ATen/ops/relu.h>
#include <torch/nn/init.h>

#include "models/flops.h"
#include "models/image_sizes.h"
#include "models/module_model.h"

namespace ampbench {
namespace {

constexpr int64_t kStemWidth = 64;

torch::nn::Conv2d conv(int64_t in, int64_t out, int64_t kernel, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding((kernel - 1) / 2).bias(false));
}

int64_t stage_planes(size_t stage) { return kStemWidth << stage; }

}  // namespace

ResNetLayout resnet_layout(int depth) {
  switch (depth) {
    case 10: return {false, {1, 1, 1, 1}};
    case 18: return {false, {2, 2, 2, 2}};
    case 34: return {false, {3, 4, 6, 3}};
    case 50: return {true, {3, 4, 6, 3}};
    case 101: return {true, {3, 4, 23, 3}};
    case 152: return {true, {3, 8, 36, 3}};
    default: return {};
  }
}

void ResNetBlockImpl::reset() {
  const int64_t out = planes_ * (bottleneck_ ? 4 : 1);
  if (bottleneck_) {
    // torchvision's Bottleneck strides its 3x3 convolution (ResNet v1.5).
    conv1_ = register_module("conv1", conv(in_, planes_, 1, 1));
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(planes_));
    conv2_ = register_module("conv2", conv(planes_, planes_, 3, stride_));
    bn2_ = register_module("bn2", torch::nn::BatchNorm2d(planes_));
    conv3_ = register_module("conv3", conv(planes_, out, 1, 1));
    bn3_ = register_module("bn3", torch::nn::BatchNorm2d(out));
  } else {
    conv1_ = register_module("conv1", conv(in_, planes_, 3, stride_));
    bn1_ = register_module("bn1", torch::nn::BatchNorm2d(planes_));
    conv2_ = register_module("conv2", conv(planes_, planes_, 3, 1));
    bn2_ = register_module("bn2", torch::nn::BatchNorm2d(planes_));
  }
  if (stride_ != 1 || in_ != out)
    downsample_ = register_module("downsample", torch::nn::Sequential(conv(in_, out, 1, stride_),
                                                                       torch::nn::BatchNorm2d(out)));
}

at::Tensor ResNetBlockImpl::forward(const at::Tensor& x) {
  at::Tensor h = at::relu(bn1_(conv1_(x)));
  h = bn2_(conv2_(h));
  if (bottleneck_) h = bn3_(conv3_(at::relu(h)));
  // In place, as torchvision adds it: under autocast the sum keeps h's dtype
  // (h + identity would promote a float16 h to a float32 identity's dtype).
  h += downsample_ ? downsample_->forward(x) : x;
  return at::relu(h);
}

void ResNetImpl::reset() {
  const ResNetLayout layout = resnet_layout(sizes_.depth);
  TORCH_CHECK(!layout.blocks.empty(), "resnet: depth ", sizes_.depth, " is not one of torchvision's");
  conv1_ = register_module("conv1", conv(kImageChannels, kStemWidth, 7, 2));
  bn1_ = register_module("bn1", torch::nn::BatchNorm2d(kStemWidth));
  layers_.clear();
  int64_t in = kStemWidth;
  for (size_t stage = 0; stage < layout.blocks.size(); ++stage) {
    torch::nn::Sequential layer;
    for (int b = 0; b < layout.blocks[stage]; ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1;
      layer->push_back(ResNetBlock(layout.bottleneck, in, stage_planes(stage), stride));
      in = stage_planes(stage) * layout.expansion();
    }
    layers_.push_back(register_module("layer" + std::to_string(stage + 1), layer));
  }
  fc_ = register_module("fc", torch::nn::Linear(in, sizes_.classes));
  initialise();
}

void ResNetImpl::initialise() {
  const torch::NoGradGuard no_grad;
  for (auto& m : modules(/*include_self=*/false)) {
    if (auto* c = m->as<torch::nn::Conv2d>())
      torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
    else if (auto* bn = m->as<torch::nn::BatchNorm2d>()) {
      torch::nn::init::ones_(bn->weight);
      torch::nn::init::zeros_(bn->bias);
    }
  }
  // zero_init_residual: every block starts as the identity.
  for (const auto& item : named_parameters())
    if (item.key().find(resnet_layout(sizes_.depth).bottleneck ? ".bn3.weight" : ".bn2.weight") != std::string::npos)
      item.value().zero_();
}

at::Tensor ResNetImpl::forward(const at::Tensor& x) {
  at::Tensor h = at::max_pool2d(at::relu(bn1_(conv1_(x))), {3, 3}, {2, 2}, {1, 1});
  for (auto& layer : layers_) h = layer->forward(h);
  return fc_(at::adaptive_avg_pool2d(h, {1, 1}).flatten(1));
}

namespace {

// What the registration counts, walked over the layout once: matrix-unit
// FLOPs, parameters and activations of one sample.
struct ResNetCost {
  double flops = 0, parameters = 0, activations = 0;

  void conv(double in, double out, double kernel, double side) {
    flops += 2.0 * in * out * kernel * kernel * side * side;
    parameters += in * out * kernel * kernel;
    activations += out * side * side;
  }
  void norm(double channels, double side) {
    parameters += 2 * channels;
    activations += 2 * channels * side * side;  // its output and the ReLU's
  }
};

int64_t conv_out(int64_t side, int64_t kernel, int64_t stride) { return (side + 2 * ((kernel - 1) / 2) - kernel) / stride + 1; }

ResNetCost resnet_cost(const ModelSizes& s) {
  const ResNetLayout layout = resnet_layout(s.depth);
  ResNetCost c;
  int64_t side = conv_out(s.image, 7, 2);
  c.conv(kImageChannels, kStemWidth, 7, side);
  c.norm(kStemWidth, side);
  side = conv_out(side, 3, 2);  // max pool
  int64_t in = kStemWidth;
  for (size_t stage = 0; stage < layout.blocks.size(); ++stage)
    for (int b = 0; b < layout.blocks[stage]; ++b) {
      const int64_t stride = (stage > 0 && b == 0) ? 2 : 1, planes = stage_planes(stage);
      const int64_t out = planes * layout.expansion(), next = conv_out(side, 3, stride);
      if (layout.bottleneck) {
        c.conv(in, planes, 1, side), c.norm(planes, side);
        c.conv(planes, planes, 3, next), c.norm(planes, next);
        c.conv(planes, out, 1, next), c.norm(out, next);
      } else {
        c.conv(in, planes, 3, next), c.norm(planes, next);
        c.conv(planes, planes, 3, next), c.norm(planes, next);
      }
      if (stride != 1 || in != out) c.conv(in, out, 1, next), c.norm(out, next);
      in = out, side = next;
    }
  c.flops += linear_flops(in, s.classes);
  c.parameters += in * s.classes + s.classes;
  return c;
}

}  // namespace

const ModelFamily& resnet_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "resnet";
    f.size_keys = {{"depth", &ModelSizes::depth}, {"image", &ModelSizes::image}};
    f.reads_channels_last = true;
    f.sizes_refusal = [](const ModelSizes& s) -> std::pair<std::string, std::string> {
      if (resnet_layout(s.depth).blocks.empty()) return {"depth", "must be one of 10, 18, 34, 50, 101, 152"};
      return {};
    };
    f.sample_shape = [](const ModelSizes& s) { return std::vector<int64_t>{kImageChannels, s.image, s.image}; };
    f.forward_flops = [](const ModelSizes& s) { return resnet_cost(s).flops; };
    f.parameters = [](const ModelSizes& s) { return resnet_cost(s).parameters; };
    f.activations = [](const ModelSizes& s) { return resnet_cost(s).activations; };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      Model m = module_model(me, ResNet(s), d);
      return s.channels_last ? to_channels_last(std::move(m)) : m;
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
