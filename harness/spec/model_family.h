// A model family as the rest of the harness sees it: what its input is, which
// sizes a suite gives it, what it costs, whether DataParallel can replicate
// it, and how to build it. Each family registers one ModelFamily beside its
// module (models/mlp.cpp, ...); model_families() lists them, and a suite's
// model name is resolved to one of them when the suite is read. Nothing
// else compares a family's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/model_sizes.h"

namespace c10 {
struct Device;
}

namespace ampbench {

struct Model;

struct ModelFamily {
  std::string name;
  // The "models" section's integer keys this family reads, besides batch
  // and classes (which every family reads), and where each one goes.
  std::vector<std::pair<std::string, int ModelSizes::*>> size_keys;
  bool reads_channels_last = false;
  // DataParallel replicates the module (torch::nn::parallel::replicate needs
  // its concrete Cloneable type, which the family's build captures).
  bool replicable = true;
  // Why these sizes cannot build the model, as {size key, reason} (an empty
  // reason when they can; nullptr: any sizes the suite reader bounds can).
  std::pair<std::string, std::string> (*sizes_refusal)(const ModelSizes&) = nullptr;
  // One sample's input shape, without the batch dimension.
  std::vector<int64_t> (*sample_shape)(const ModelSizes&) = nullptr;
  // Matrix-unit FLOPs of one sample's forward (models/flops.h).
  double (*forward_flops)(const ModelSizes&) = nullptr;
  // Parameter count and one sample's activations in floats, for the memory
  // estimate (suite/memory_estimate.h).
  double (*parameters)(const ModelSizes&) = nullptr;
  double (*activations)(const ModelSizes&) = nullptr;
  // Builds the module from the global generator's current state (make_model
  // seeds it) and moves it to the device.
  Model (*build)(const ModelFamily&, const ModelSizes&, const c10::Device&) = nullptr;
};

// Every family, in registration order (the one list, models/model_family.cpp).
const std::vector<const ModelFamily*>& model_families();
// nullptr for an unknown name.
const ModelFamily* find_model_family(std::string_view name);
std::vector<std::string> model_family_names();

}  // namespace ampbench
