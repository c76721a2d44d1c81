// ampbench_optim_probe: the harness's optimizers on given parameters and
// gradients, for reference/python/tests/test_optimizers_vs_torch_optim.py,
// which holds them to torch.optim itself.
//
//   ampbench_optim_probe < request.json > result.json
//
// request: {"dtype": "float32",                    or float16, bfloat16: the
//                                                   parameters' and gradients'
//           "params": [[float, ...], ...],          initial values, 1-D
//           "grads": [[[float, ...], ...], ...],    per step, per parameter
//           "cases": [{"kind": "sgd", "impl": "foreach", "lr": 0.05,
//                      "settings": {torch.optim's keyword arguments},
//                      "skip_steps": [step, ...]}, ...]}
// result:  {"results": [[[float, ...], ...], ...]}  final parameters per case
//                                                   (exact: each dtype's values are floats)
//
// A skipped step is what a GradScaler that found an inf does: the loop and
// foreach implementations are not called, the fused ones are, with the inf
// flag set, and skip on the device.
#include <ATen/ATen.h>

#include <exception>
#include <iostream>

#include "core/json.h"
#include "optim/optimizers.h"

namespace ampbench::optim {
namespace {

// The parameters' dtype: the oracle's replicas of LibTorch's optimizers
// must round as they do in the half types too (Apex O3 trains float16
// parameters with them).
at::ScalarType dtype_of(const nlohmann::json& request) {
  const std::string name = request.value("dtype", "float32");
  if (name == "float32") return at::kFloat;
  if (name == "float16") return at::kHalf;
  if (name == "bfloat16") return at::kBFloat16;
  throw std::invalid_argument("unknown dtype '" + name + "' (known: float32, float16, bfloat16)");
}

at::Tensor tensor_of(const nlohmann::json& values, at::ScalarType dtype) {
  return at::tensor(values.get<std::vector<float>>(), at::kFloat).to(dtype);
}

Settings read_settings(Kind kind, const nlohmann::json& j) {
  Settings s = default_settings(kind);
  s.momentum = j.value("momentum", s.momentum);
  s.dampening = j.value("dampening", s.dampening);
  s.nesterov = j.value("nesterov", s.nesterov);
  s.weight_decay = j.value("weight_decay", s.weight_decay);
  if (j.contains("betas")) {
    s.beta1 = j.at("betas").at(0).get<double>();
    s.beta2 = j.at("betas").at(1).get<double>();
  }
  s.eps = j.value("eps", s.eps);
  s.amsgrad = j.value("amsgrad", s.amsgrad);
  if (const std::string why = settings_refusal(kind, s); !why.empty()) throw std::invalid_argument(why);
  return s;
}

nlohmann::json run_case(const nlohmann::json& request, const nlohmann::json& c) {
  const std::optional<Kind> kind = parse_kind(c.at("kind").get<std::string>());
  if (!kind) throw std::invalid_argument("unknown optimizer kind " + c.at("kind").dump());
  const Impl impl = parse_impl(c.at("impl").get<std::string>());
  const at::ScalarType dtype = dtype_of(request);
  std::vector<at::Tensor> params;
  for (const auto& p : request.at("params")) params.push_back(tensor_of(p, dtype).requires_grad_(true));
  auto opt = make_optimizer(*kind, impl, params, c.at("lr").get<double>(), read_settings(*kind, c.at("settings")));
  const std::vector<int> skips = c.value("skip_steps", std::vector<int>{});
  const auto& grads = request.at("grads");
  for (int t = 0; t < static_cast<int>(grads.size()); ++t) {
    for (size_t i = 0; i < params.size(); ++i) params[i].mutable_grad() = tensor_of(grads[t].at(i), dtype);
    const bool skip = std::find(skips.begin(), skips.end(), t) != skips.end();
    if (!skip) {
      opt->step();
    } else if (auto* amp = dynamic_cast<amp::AmpScalingOptimizer*>(opt.get())) {
      amp->step_with_amp(at::ones({}, at::kFloat), at::ones({}, at::kFloat));
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (const at::Tensor& p : params) {
    const at::Tensor v = p.detach().to(at::kFloat).contiguous();
    out.push_back(std::vector<float>(v.data_ptr<float>(), v.data_ptr<float>() + v.numel()));
  }
  return out;
}

}  // namespace
}  // namespace ampbench::optim

int main() {
  try {
    const nlohmann::json request = nlohmann::json::parse(std::cin);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& c : request.at("cases")) results.push_back(ampbench::optim::run_case(request, c));
    std::cout << nlohmann::json{{"results", results}}.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ampbench_optim_probe: " << e.what() << "\n";
    return 2;
  }
}
