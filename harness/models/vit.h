// torchvision's VisionTransformer (torchvision/models/vision_transformer.py)
// with its parameter names, shapes, registration order and initialisation:
// the patch convolution, the class token, learned position embeddings,
// pre-norm encoder blocks (LayerNorm eps 1e-6, nn.MultiheadAttention,
// the exact GELU) and the zero-initialised head on the class token. The
// attention is computed op for op as F.multi_head_attention_forward computes
// it in training without weights: a packed in-projection, then
// scaled_dot_product_attention.
#pragma once

#include <torch/nn/cloneable.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <vector>

#include "models/linear.h"
#include "spec/model_sizes.h"

namespace ampbench {

// nn.MultiheadAttention's parameters (in_proj_weight, in_proj_bias, out_proj)
// used as torchvision's EncoderBlock uses them: batch first, self-attention.
class VitSelfAttentionImpl : public torch::nn::Cloneable<VitSelfAttentionImpl> {
 public:
  explicit VitSelfAttentionImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  at::Tensor in_proj_weight_, in_proj_bias_;
  Linear out_proj_{nullptr};
};
TORCH_MODULE(VitSelfAttention);

class VitEncoderBlockImpl : public torch::nn::Cloneable<VitEncoderBlockImpl> {
 public:
  explicit VitEncoderBlockImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  torch::nn::LayerNorm ln_1_{nullptr}, ln_2_{nullptr};
  VitSelfAttention self_attention_{nullptr};
  torch::nn::Sequential mlp_{nullptr};
};
TORCH_MODULE(VitEncoderBlock);

// The encoder's blocks, named encoder_layer_<i> as torchvision names them (a
// LibTorch Sequential would lose the names when DataParallel clones it).
class VitLayersImpl : public torch::nn::Cloneable<VitLayersImpl> {
 public:
  explicit VitLayersImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(at::Tensor x);

 private:
  ModelSizes sizes_;
  std::vector<VitEncoderBlock> blocks_;
};
TORCH_MODULE(VitLayers);

// The classifier, as torchvision's `heads` Sequential holding `head`.
class VitHeadsImpl : public torch::nn::Cloneable<VitHeadsImpl> {
 public:
  explicit VitHeadsImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x) { return head_(x); }

 private:
  ModelSizes sizes_;
  Linear head_{nullptr};
};
TORCH_MODULE(VitHeads);

class VitEncoderImpl : public torch::nn::Cloneable<VitEncoderImpl> {
 public:
  explicit VitEncoderImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  at::Tensor pos_embedding_;
  VitLayers layers_{nullptr};
  torch::nn::LayerNorm ln_{nullptr};
};
TORCH_MODULE(VitEncoder);

class VitImpl : public torch::nn::Cloneable<VitImpl> {
 public:
  explicit VitImpl(const ModelSizes& sizes) : sizes_(sizes) { reset(); }
  void reset() override;
  // images [batch, 3, image, image] -> logits [batch, classes].
  at::Tensor forward(const at::Tensor& x);

 private:
  ModelSizes sizes_;
  at::Tensor class_token_;
  torch::nn::Conv2d conv_proj_{nullptr};
  VitEncoder encoder_{nullptr};
  VitHeads heads_{nullptr};
};
TORCH_MODULE(Vit);

}  // namespace ampbench
