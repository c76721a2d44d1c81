// A Model is a module plus its forward, built from a case's family, sizes
// and seed, so workloads need not know which family they train. The families
// themselves are registered in models/model_family.h.
#pragma once

#include <torch/nn/module.h>

#include <functional>
#include <memory>
#include <string>

#include "spec/loss.h"
#include "spec/model_family.h"

namespace ampbench {

struct Model {
  using Forward = std::function<at::Tensor(const at::Tensor&)>;

  const ModelFamily* family = nullptr;
  std::shared_ptr<torch::nn::Module> module;
  Forward forward;
  // DataParallel: deep copies of the module on `devices`, as forwards whose
  // parameters' gradients flow back to this module's (empty for a family
  // that cannot be replicated).
  std::function<std::vector<Forward>(const std::vector<c10::Device>&)> replicate;
  // Attention models: the scaled_dot_product_attention kernel the forward
  // picks for this input ("flash", "math", ...); empty for the others.
  std::function<std::string(const at::Tensor&)> attention_backend;

  at::Tensor operator()(const at::Tensor& x) const { return forward(x); }
  std::vector<at::Tensor> parameters() const { return module->parameters(); }
};

// A module standing for a torch.nn BatchNorm layer it is not a LibTorch
// class of (a TorchScript submodule's view, models/scripted.cpp): O2's
// keep_batchnorm_fp32 keeps it in float32 too.
struct BatchNormView {
  virtual ~BatchNormView() = default;
};

// Whether `module` or a module below it is a BatchNorm layer (LibTorch's, or
// a TorchScript one's view).
bool has_batchnorm(const torch::nn::Module& module);

// Builds `family` with deterministic weights drawn from `seed`, on `device`.
Model make_model(const ModelFamily& family, const ModelSizes& sizes, std::uint64_t seed, const c10::Device& device);

// NHWC weights and inputs: cuDNN's tensor-core convolutions read them
// without transposes (a convolutional family's channels_last size).
Model to_channels_last(Model m);

// The training loss of the output against the labels: cross-entropy per
// position for a next-token model (logits [batch, seq, vocab] against labels
// [batch, seq]), as transformers' causal-LM loss flattens them; MSE and
// BCE-with-logits against float targets of the output's shape.
at::Tensor training_loss(const at::Tensor& out, const at::Tensor& labels, const LossSettings& loss = {});

// Apex's cast model (O2, O3): floating-point parameters and buffers become
// `dtype` (BatchNorm's stay float32 with keep_batchnorm_fp32, as O2 keeps
// them), and the forward casts floating inputs to `dtype` and its output
// back to float32, so the loss is computed in float32.
void cast_model(Model& model, c10::ScalarType dtype, bool keep_batchnorm_fp32);

}  // namespace ampbench
