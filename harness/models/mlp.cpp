#include "models/mlp.h"

#include "models/flops.h"
#include "models/module_model.h"

#include <ATen/ops/relu.h>

namespace ampbench {

void MlpImpl::reset() {
  fc1_ = register_module("fc1", Linear(sizes_.in_features, sizes_.hidden));
  fc2_ = register_module("fc2", Linear(sizes_.hidden, sizes_.hidden));
  head_ = register_module("head", Linear(sizes_.hidden, sizes_.classes));
}

at::Tensor MlpImpl::forward(const at::Tensor& x) {
  return head_(at::relu(fc2_(at::relu(fc1_(x)))));
}

const ModelFamily& mlp_family() {
  static const ModelFamily family = [] {
    ModelFamily f;
    f.name = "mlp";
    f.size_keys = {{"in_features", &ModelSizes::in_features}, {"hidden", &ModelSizes::hidden}};
    f.sample_shape = [](const ModelSizes& s) { return std::vector<int64_t>{s.in_features}; };
    f.forward_flops = [](const ModelSizes& s) {
      return linear_flops(s.in_features, s.hidden) + linear_flops(s.hidden, s.hidden) +
             linear_flops(s.hidden, s.classes);
    };
    f.parameters = [](const ModelSizes& s) {
      const double in = s.in_features, h = s.hidden, c = s.classes;
      return in * h + h + h * h + h + h * c + c;
    };
    f.activations = [](const ModelSizes& s) { return s.in_features + 4.0 * s.hidden + 2.0 * s.classes; };
    f.build = [](const ModelFamily& me, const ModelSizes& s, const c10::Device& d) {
      return module_model(me, Mlp(s), d);
    };
    return f;
  }();
  return family;
}

}  // namespace ampbench
