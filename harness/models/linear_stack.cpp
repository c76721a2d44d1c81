#include "models/linear_stack.h"

#include "models/flops.h"
#include "models/module_model.h"

namespace ampbench {
namespace {

// Layer i's {in, out} features.
std::pair<int64_t, int64_t> layer_shape(const ModelSizes& s, int i) {
  const int64_t in = i == 0 ? s.in_features : s.hidden;
  const int64_t out = i == s.layers - 1 ? s.classes : s.hidden;
  return {in, out};
}

}  // namespace

void LinearStackImpl::reset() {
  layers_.clear();
  for (int i = 0; i < sizes_.layers; ++i) {
    const auto [in, out] = layer_shape(sizes_, i);
    layers_.push_back(register_module(std::to_string(i), torch::nn::Linear(in, out)));
  }
}

at::Tensor LinearStackImpl::forward(const at::Tensor& x) {
  at::Tensor h = x;
  for (auto& layer : layers_) h = layer(h);
  return h;
}

const ModelFamily& linear_stack_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "linear_stack";
    f.size_keys = {{"in_features", &ModelSizes::in_features},
                   {"hidden", &ModelSizes::hidden},
                   {"layers", &ModelSizes::layers}};
    f.sample_shape = [](const ModelSizes& s) { return std::vector<int64_t>{s.in_features}; };
    f.forward_flops = [](const ModelSizes& s) {
      double flops = 0;
      for (int i = 0; i < s.layers; ++i) flops += linear_flops(layer_shape(s, i).first, layer_shape(s, i).second);
      return flops;
    };
    f.parameters = [](const ModelSizes& s) {
      double n = 0;
      for (int i = 0; i < s.layers; ++i) {
        const auto [in, out] = layer_shape(s, i);
        n += static_cast<double>(in * out + out);
      }
      return n;
    };
    f.activations = [](const ModelSizes& s) { return s.in_features + 2.0 * s.hidden * s.layers + 2.0 * s.classes; };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, LinearStack(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
