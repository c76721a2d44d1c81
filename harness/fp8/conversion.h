// Which Linear layers of a module an FP8 recipe converts: both dimensions
// divisible by 16 (the alignment FP8 GEMMs need on a GPU; 128 for blockwise
// scaling, ConversionOptions::alignment); the first and the
// last Linear, where the network's input and its logits meet FP8's narrow
// range, stay in high precision unless asked for. First and last are in the
// module's registration order (named_modules), which the model families keep
// in forward order.
#pragma once

#include <torch/nn/module.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fp8/conversion_options.h"

namespace ampbench::fp8 {

// Every torch::nn::Linear of `module`, in registration order.
std::vector<LinearChoice> plan_conversion(const torch::nn::Module& module, const ConversionOptions& options);

// Why an FP8 recipe cannot run on this plan (no Linear converted), naming
// each layer's reason; empty when at least one is converted.
std::string conversion_refusal(const std::vector<LinearChoice>& plan);

}  // namespace ampbench::fp8
