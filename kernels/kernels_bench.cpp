// grad_health over 10, 100 and 1000 tensors of 4096 float32 values: the CPU
// reference and the fused CUDA kernel (one launch; the time includes the
// segment-table upload and the read-back of the counts, i.e. what a caller
// pays). Run by hand:
//   build/kernels/kernels_bench --benchmark_min_time=0.2
#include "kernels/grad_health.h"

#include <ATen/ops/randn.h>
#include <benchmark/benchmark.h>
#include <torch/cuda.h>

#include <vector>

namespace ampbench::kernels {
namespace {

constexpr int64_t kTensorNumel = 4096;

std::vector<at::Tensor> make_grads(int64_t count, c10::Device device) {
  std::vector<at::Tensor> grads;
  grads.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    grads.push_back(at::randn({kTensorNumel}, at::TensorOptions().device(device)));
  }
  return grads;
}

void report(benchmark::State& state, int64_t count) {
  state.counters["tensors"] = static_cast<double>(count);
  state.SetItemsProcessed(state.iterations() * count * kTensorNumel);
  state.SetBytesProcessed(state.iterations() * count * kTensorNumel *
                          static_cast<int64_t>(sizeof(float)));
}

void BM_GradHealthReference(benchmark::State& state) {
  const int64_t count = state.range(0);
  const std::vector<at::Tensor> grads = make_grads(count, c10::Device(c10::kCPU));
  for (auto _ : state) benchmark::DoNotOptimize(grad_health_reference(grads, 65536.0));
  report(state, count);
}

void BM_GradHealthCuda(benchmark::State& state) {
  if (!grad_health_has_cuda_kernel()) {
    state.SkipWithError("built without CUDA kernels (AMPBENCH_KERNELS_CUDA undefined)");
    return;
  }
  if (!torch::cuda::is_available()) {
    state.SkipWithError("no CUDA device (torch::cuda::is_available() is false)");
    return;
  }
  const int64_t count = state.range(0);
  const std::vector<at::Tensor> grads = make_grads(count, c10::Device(c10::kCUDA, 0));
  grad_health(grads, 65536.0);  // first-launch costs (module load) out of the loop
  // grad_health returns host counts, so every iteration is synchronised.
  for (auto _ : state) benchmark::DoNotOptimize(grad_health(grads, 65536.0));
  report(state, count);
}

BENCHMARK(BM_GradHealthReference)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GradHealthCuda)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ampbench::kernels

BENCHMARK_MAIN();
