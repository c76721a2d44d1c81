// torchvision's ResNet (torchvision/models/resnet.py), with its parameter and
// buffer names, shapes and initialisation: the 7x7 stem, max pool, four
// stages of BasicBlocks (depth 10, 18, 34) or Bottlenecks (50, 101, 152),
// global average pool and fc; convolutions without bias, Kaiming-normal
// (fan_out) weights, and zero_init_residual: each block's last BatchNorm
// starts at weight 0, as the large-batch recipes (and MLPerf) train it.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>

#include <vector>

#include "spec/model_sizes.h"

namespace ampbench {

// One depth's architecture: the block kind and the blocks per stage.
struct ResNetLayout {
  bool bottleneck = false;
  std::vector<int> blocks;
  int expansion() const { return bottleneck ? 4 : 1; }
};

// torchvision's layouts; an empty `blocks` for a depth it does not define.
ResNetLayout resnet_layout(int depth);

class ResNetBlockImpl : public torch::nn::Cloneable<ResNetBlockImpl> {
 public:
  ResNetBlockImpl(bool bottleneck, int64_t in, int64_t planes, int64_t stride)
      : bottleneck_(bottleneck), in_(in), planes_(planes), stride_(stride) {
    reset();
  }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  bool bottleneck_;
  int64_t in_, planes_, stride_;
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr}, conv3_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr}, bn3_{nullptr};
  torch::nn::Sequential downsample_{nullptr};
};
TORCH_MODULE(ResNetBlock);

class ResNetImpl : public torch::nn::Cloneable<ResNetImpl> {
 public:
  explicit ResNetImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  // images [batch, 3, image, image] -> logits [batch, classes].
  at::Tensor forward(const at::Tensor& x);

 private:
  void initialise();

  ModelSizes sizes_;
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  std::vector<torch::nn::Sequential> layers_;
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet);

}  // namespace ampbench
