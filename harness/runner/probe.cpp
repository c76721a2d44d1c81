#include "runner/probe.h"

#include <ATen/ops/cat.h>
#include <torch/csrc/autograd/grad_mode.h>

#include "models/model.h"
#include "workloads/forward_rng.h"
#include "workloads/training_state.h"

namespace ampbench {

bool probes_function_space(const TrainingState& s) {
  for (const Model& m : s.models)
    if (has_batchnorm(*m.module)) return true;
  return false;
}

std::vector<float> probe_outputs(const TrainingState& s, const at::Tensor& inputs) {
  const torch::NoGradGuard no_grad;
  std::vector<at::Tensor> outputs;
  for (size_t i = 0; i < s.models.size(); ++i) {
    // The case's own build, in float32: only the weights are then replaced.
    const Model fresh = make_model(*s.spec.model, s.spec.sizes, s.spec.seed + i, s.device);
    const std::vector<at::Tensor> trained = s.trained(i);
    const std::vector<at::Tensor> params = fresh.parameters();
    TORCH_CHECK(trained.size() == params.size(), "probe: model ", i, " trains ", trained.size(),
                " tensors, its fresh copy has ", params.size());
    for (size_t k = 0; k < params.size(); ++k) params[k].copy_(trained[k]);
    fresh.module->train(true);
    // Step -1: no training forward uses it.
    const auto lock = seed_generators(forward_seed(s.spec.seed, -1, static_cast<int>(i)));
    outputs.push_back(fresh(inputs).to(at::kCPU, at::kFloat).reshape(-1));
  }
  const at::Tensor all = at::cat(outputs).contiguous();
  return std::vector<float>(all.data_ptr<float>(), all.data_ptr<float>() + all.numel());
}

}  // namespace ampbench
