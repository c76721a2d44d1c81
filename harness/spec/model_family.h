// A model family as the rest of the harness sees it: what its input is, which
// sizes a suite gives it, what it costs, whether DataParallel can replicate
// it, and how to build it. Each family registers one ModelFamily beside its
// module (models/mlp.cpp, ...); model_families() lists them, and a suite's
// model name is resolved to one of them when the suite is read. Nothing
// else compares a family's name.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/precision.h"
#include "spec/model_sizes.h"

namespace c10 {
struct Device;
}

namespace ampbench {

struct Model;

// What one sample is and what the loss compares the output with.
enum class InputKind {
  kFloat,     // float features or images (sample_shape)
  kTokenIds,  // int64 token ids in [0, vocab), shape [seq]
};
enum class TargetKind {
  kClass,      // one label per sample; the output is [batch, classes]
  kNextToken,  // one label per position, the next token; the output is [batch, seq, vocab]
};

// A model given by file (models/scripted.h): a TorchScript module and what
// its forward takes, as a suite describes them.
struct ScriptedInput {
  InputKind kind = InputKind::kFloat;
  std::vector<int64_t> shape;  // one sample's, without the batch dimension
  int64_t vocab = 0;           // token ids: drawn in [0, vocab) (padding: id 0)
};
struct ScriptedModel {
  std::string path;  // absolute
  // Several float inputs travel as one tensor, each sample's inputs
  // flattened and concatenated in order; the forward splits them again.
  std::vector<ScriptedInput> inputs;
  // The Python module the file was made from ("" when the suite names
  // none): the compiled implementation trains it, since torch.compile
  // cannot compile a TorchScript file. Kept as the suite gives them; only
  // Python imports the factory and reads the keyword arguments.
  std::string python_factory;
  std::string python_kwargs_json = "{}";
};

struct ModelFamily {
  std::string name;
  std::optional<ScriptedModel> scripted;  // set for a model given by file
  InputKind input = InputKind::kFloat;
  TargetKind target = TargetKind::kClass;
  // Token ids end in padding (id 0) of a length drawn per sample; the model
  // masks the padding out of attention (BERT's attention_mask).
  bool padded_tokens = false;
  // LayerNorm fed by 0.02-initialised embeddings (transformers' models): its
  // double backward in float16 computes rstd^3, which passes float16's 65504
  // once the input's standard deviation is below about 0.025, so a
  // second-order workload cannot run with the model cast to float16 (O2, O3
  // keep only BatchNorm in float32). Measured on the canonical modules too.
  bool small_layernorm_inputs = false;
  // Why its forward has no double backward at all (a fused attention
  // kernel), so that a second-order workload cannot run at any precision
  // ("": it has one).
  std::string first_order_only;
  // Precisions PyTorch itself cannot train this model in on the CPU, with
  // its message (a model given by file, probed once at load: an LSTM under
  // float16 autocast fails inside oneDNN). Its CPU cases in them are skipped,
  // as tf32 is on a CPU, not errors.
  std::map<Precision, std::string> cpu_unsupported;
  // The "models" section's integer keys this family reads, besides batch
  // and classes (which every family reads), and where each one goes.
  std::vector<std::pair<std::string, int ModelSizes::*>> size_keys;
  // Integer keys a suite may leave out: ModelSizes's default then holds, so
  // a key added to a family keeps every existing suite as it was.
  std::vector<std::pair<std::string, int ModelSizes::*>> optional_size_keys;
  bool reads_channels_last = false;
  // DataParallel replicates the module (torch::nn::parallel::replicate needs
  // its concrete Cloneable type, which the family's build captures).
  bool replicable = true;
  // Why these sizes cannot build the model, as {size key, reason} (an empty
  // reason when they can; empty: any sizes the suite reader bounds can).
  std::function<std::pair<std::string, std::string>(const ModelSizes&)> sizes_refusal;
  // One sample's input shape, without the batch dimension.
  std::function<std::vector<int64_t>(const ModelSizes&)> sample_shape;
  // Matrix-unit FLOPs of one sample's forward (models/flops.h).
  std::function<double(const ModelSizes&)> forward_flops;
  // Parameter count and one sample's activations in floats, for the memory
  // estimate (suite/memory_estimate.h).
  std::function<double(const ModelSizes&)> parameters;
  std::function<double(const ModelSizes&)> activations;
  // Builds the module from the global generator's current state (make_model
  // seeds it) and moves it to the device.
  std::function<Model(const ModelFamily&, const ModelSizes&, const c10::Device&)> build;
};

// Every family, in registration order (the one list, models/model_family.cpp).
const std::vector<const ModelFamily*>& model_families();
// nullptr for an unknown name.
const ModelFamily* find_model_family(std::string_view name);
std::vector<std::string> model_family_names();

}  // namespace ampbench
