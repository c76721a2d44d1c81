// The scaler's per-iteration cost: step() (unscale_ of every gradient with
// the inf/NaN check, the found_inf read, the skip decision) plus update(),
// for 10, 100 and 1000 parameter tensors of 1024 floats.
//   build/harness/amp/amp_bench --benchmark_min_time=0.2
#include "amp/grad_scaler.h"

#include <benchmark/benchmark.h>
#include <torch/cuda.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <vector>

namespace ampbench::amp {
namespace {

constexpr int64_t kTensorNumel = 1024;

// An optimizer whose step() does nothing, so that only the scaler is timed.
class NoOpOptimizer : public torch::optim::Optimizer {
 public:
  explicit NoOpOptimizer(std::vector<at::Tensor> params)
      : Optimizer(std::move(params), std::make_unique<torch::optim::SGDOptions>(0.0)) {}
  at::Tensor step(LossClosure /*closure*/) override { return {}; }
};

void BM_ScalerStepUpdate(benchmark::State& state, const char* device_name) {
  const at::Device device(device_name);
  if (device.is_cuda() && !torch::cuda::is_available()) {
    state.SkipWithError("CUDA device not available (torch::cuda::is_available() is false)");
    return;
  }
  const int64_t num_tensors = state.range(0);
  std::vector<at::Tensor> params;
  for (int64_t i = 0; i < num_tensors; ++i) {
    at::Tensor p = at::zeros({kTensorNumel}, device).requires_grad_();
    p.mutable_grad() = at::ones({kTensorNumel}, device);
    params.push_back(p);
  }
  NoOpOptimizer optimizer(params);
  // Scale 1 and no growth: unscaling leaves the gradients as they are, so
  // every iteration does the same work (no drift towards denormals).
  GradScaler scaler(GradScalerOptions().init_scale(1.0).growth_interval(1 << 30));
  scaler.scale(at::ones({}, device));

  for (auto _ : state) {
    benchmark::DoNotOptimize(scaler.step(optimizer));
    scaler.update();
    // update() is asynchronous on CUDA; step() already waited for unscale_.
    if (device.is_cuda()) torch::cuda::synchronize();
  }
  state.counters["tensors"] = static_cast<double>(num_tensors);
  state.SetItemsProcessed(state.iterations() * num_tensors);
}

BENCHMARK_CAPTURE(BM_ScalerStepUpdate, cpu, "cpu")
    ->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ScalerStepUpdate, cuda, "cuda")
    ->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ampbench::amp

BENCHMARK_MAIN();
