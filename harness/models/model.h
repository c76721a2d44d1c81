// Models: MLP, small CNN, small Transformer encoder block; built from a
// case's sizes and seed. A Model is a module plus its forward, so workloads
// need not know which family they train.
#pragma once

#include <torch/nn/module.h>

#include <functional>
#include <memory>
#include <string>

#include "spec/case_spec.h"

namespace ampbench {

struct Model {
  std::string family;  // mlp | cnn | transformer
  std::shared_ptr<torch::nn::Module> module;
  std::function<at::Tensor(const at::Tensor&)> forward;
  // Attention models: the scaled_dot_product_attention kernel the forward
  // picks for this input ("flash", "math", ...); empty for the others.
  std::function<std::string(const at::Tensor&)> attention_backend;

  at::Tensor operator()(const at::Tensor& x) const { return forward(x); }
  std::vector<at::Tensor> parameters() const { return module->parameters(); }
};

// Builds `family` with deterministic weights drawn from `seed`, on `device`.
Model make_model(const std::string& family, const ModelSizes& sizes, std::uint64_t seed, const c10::Device& device);

// Apex's cast model (O2, O3): floating-point parameters and buffers become
// `dtype` (BatchNorm's stay float32 with keep_batchnorm_fp32, as O2 keeps
// them), and the forward casts floating inputs to `dtype` and its output
// back to float32, so the loss is computed in float32.
void cast_model(Model& model, c10::ScalarType dtype, bool keep_batchnorm_fp32);

// The shape of one input sample (without the batch dimension).
std::vector<int64_t> input_shape(const std::string& family, const ModelSizes& sizes);

}  // namespace ampbench
