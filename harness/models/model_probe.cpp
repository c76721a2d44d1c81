// ampbench_model_probe: one float32 forward and backward of a model family
// on one synthetic batch, for the equivalence tests against the canonical
// Python modules (reference/python/tests/test_canonical_equivalence.py).
//
//   ampbench_model_probe --family gpt2 --sizes '{"batch": 2, ...}' --seed 1
//                        [--load STATE.pt] [--autocast bf16|fp16] --out DIR
//
// Writes DIR/state.pt (the initial parameters and buffers by name),
// DIR/inputs.pt, DIR/labels.pt and DIR/result.pt ({"loss": ..., "output":
// the model's output, and each parameter's gradient under "grad.<name>"}),
// all readable by torch.load,
// and DIR/family.json (the registration's forward FLOPs per sample and
// parameter count, for the count made another way).
// --load replaces the initial state by a dict of tensors written by Python's
// torch.save: every name of the C++ module must be in it with its shape; the
// names it has beyond those are written to DIR/unused_keys.txt.
// --autocast runs the forward and the loss as `with torch.autocast("cpu",
// dtype)` does, to compare the autocast arithmetic too.
#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <torch/serialize.h>
#include <torch/utils.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "core/json.h"
#include "data/synthetic_data.h"
#include "amp/autocast_guard.h"
#include "models/model.h"

namespace ampbench {
namespace {

ModelSizes read_sizes(const ModelFamily& family, const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  ModelSizes s;
  s.batch = j.at("batch").get<int>();
  if (family.target == TargetKind::kClass) s.classes = j.at("classes").get<int>();
  for (const auto& [key, field] : family.size_keys) s.*field = j.at(key).get<int>();
  for (const auto& [key, field] : family.optional_size_keys)
    if (j.contains(key)) s.*field = j.at(key).get<int>();
  if (family.target == TargetKind::kNextToken) s.classes = s.vocab;
  // A size key of its own kind (a layout, not a count), read where it applies.
  if (family.reads_channels_last && j.contains("channels_last")) s.channels_last = j.at("channels_last").get<bool>();
  return s;
}

std::vector<std::pair<std::string, at::Tensor>> named_state(const torch::nn::Module& m) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& p : m.named_parameters()) out.emplace_back(p.key(), p.value());
  for (const auto& b : m.named_buffers()) out.emplace_back(b.key(), b.value());
  return out;
}

void save(const std::filesystem::path& path, const c10::IValue& value) {
  const std::vector<char> bytes = torch::pickle_save(value);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

c10::Dict<std::string, at::Tensor> as_dict(const std::vector<std::pair<std::string, at::Tensor>>& named) {
  c10::Dict<std::string, at::Tensor> d;
  for (const auto& [name, t] : named) d.insert(name, t.detach().clone());
  return d;
}

// Copies the Python state into the module; returns the keys it did not use.
std::vector<std::string> load_state(torch::nn::Module& m, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const c10::impl::GenericDict dict = torch::pickle_load(bytes).toGenericDict();
  std::set<std::string> unused;
  for (const auto& e : dict) unused.insert(e.key().toStringRef());
  const torch::NoGradGuard no_grad;
  for (auto& [name, t] : named_state(m)) {
    if (!dict.contains(name)) throw std::runtime_error(path + ": no tensor named '" + name + "'");
    const at::Tensor src = dict.at(name).toTensor();
    if (src.sizes() != t.sizes())
      throw std::runtime_error(path + ": '" + name + "' has shape " + c10::str(src.sizes()) + ", the module's is " +
                               c10::str(t.sizes()));
    t.copy_(src);
    unused.erase(name);
  }
  return {unused.begin(), unused.end()};
}

int probe(const std::string& family_name, const std::string& sizes_json, int seed, const std::string& load,
          std::optional<at::ScalarType> autocast_dtype, const std::filesystem::path& out) {
  const ModelFamily* family = find_model_family(family_name);
  if (!family) throw std::runtime_error("unknown model family '" + family_name + "'");
  const ModelSizes sizes = read_sizes(*family, sizes_json);
  const c10::Device cpu(c10::kCPU);
  Model model = make_model(*family, sizes, static_cast<std::uint64_t>(seed), cpu);
  // A folder of its own: never write over files it did not make.
  if (std::filesystem::exists(out) && !std::filesystem::is_empty(out))
    throw std::runtime_error(out.string() + ": exists and is not empty");
  std::filesystem::create_directories(out);
  if (!load.empty()) {
    std::ofstream unused(out / "unused_keys.txt");
    for (const std::string& k : load_state(*model.module, load)) unused << k << "\n";
  }
  save(out / "state.pt", as_dict(named_state(*model.module)));
  std::ofstream(out / "family.json") << nlohmann::json{{"forward_flops_per_sample", family->forward_flops(sizes)},
                                                       {"parameters", family->parameters(sizes)}}
                                            .dump();

  DataOptions options;
  options.model = family;
  options.sizes = sizes;
  options.seed = static_cast<std::uint64_t>(seed);
  options.distinct_batches = 1;
  const SyntheticData data(options, cpu);
  const Batch& batch = data.host(0);
  save(out / "inputs.pt", batch.inputs);
  save(out / "labels.pt", batch.labels);

  at::Tensor output, loss;
  {
    std::optional<amp::AutocastGuard> autocast;
    if (autocast_dtype) autocast.emplace(c10::kCPU, *autocast_dtype);
    output = model(batch.inputs);
    loss = training_loss(output, batch.labels);
  }
  loss.backward();
  std::vector<std::pair<std::string, at::Tensor>> result = {{"loss", loss.detach()}, {"output", output.detach()}};
  for (const auto& p : model.module->named_parameters())
    result.emplace_back("grad." + p.key(), p.value().grad().defined() ? p.value().grad() : at::zeros_like(p.value()));
  save(out / "result.pt", as_dict(result));
  return 0;
}

}  // namespace
}  // namespace ampbench

int main(int argc, char** argv) {
  CLI::App app{"One float32 forward/backward of a model family, for the equivalence tests"};
  std::string family, sizes, load, out, autocast;
  int seed = 1;
  app.add_option("--family", family)->required();
  app.add_option("--sizes", sizes)->required();
  app.add_option("--seed", seed);
  app.add_option("--load", load);
  const std::map<std::string, at::ScalarType> autocast_dtypes = {{"bf16", at::kBFloat16}, {"fp16", at::kHalf}};
  app.add_option("--autocast", autocast, "run the forward and the loss under CPU autocast to this dtype")
      ->check(CLI::IsMember(autocast_dtypes));
  app.add_option("--out", out)->required();
  CLI11_PARSE(app, argc, argv);
  try {
    std::optional<at::ScalarType> dtype;
    if (!autocast.empty()) dtype = autocast_dtypes.at(autocast);
    return ampbench::probe(family, sizes, seed, load, dtype, out);
  } catch (const std::exception& e) {
    std::cerr << "ampbench_model_probe: " << e.what() << "\n";
    return 2;
  }
}
