// What the harness costs per training step: the plain workload run exactly
// as `ampbench run` times it (TrainingState, Workload::step, the disabled
// scaler and autocast guards, the batch vector) against the same step written
// as a bare LibTorch loop on the same modules, sizes, data and optimizer.
// The budget is 2% (timings must be honest, not inflated by the harness).
//
//   OMP_NUM_THREADS=1 build/suites/micro/harness_overhead_bench \
//     --benchmark_repetitions=20 --benchmark_enable_random_interleaving=true \
//     --benchmark_report_aggregates_only=true
// and compare the medians of BM_HarnessStep and BM_BareStep per model
// (interleaved, so machine noise hits both alike).
#include <benchmark/benchmark.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>
#include <torch/utils.h>

#include <memory>
#include <vector>

#include "data/synthetic_data.h"
#include "models/mlp.h"
#include "models/model.h"
#include "models/transformer.h"
#include "workloads/training_state.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

CaseSpec overhead_case(const std::string& model) {
  CaseSpec spec;
  spec.workload = &workload_traits("plain");
  spec.model = find_model_family(model);
  spec.optimizer = optim::Kind::kSgd;
  spec.precision = PrecisionPolicy(Precision::kFp32);
  spec.scaler_enabled = false;
  spec.lr = 0.01;
  // Sizes where one step is ~1 ms on a CPU core: large enough that timer
  // resolution does not matter, small enough that per-op overhead shows.
  spec.sizes.batch = 64;
  spec.sizes.in_features = 256;
  spec.sizes.hidden = 256;
  spec.sizes.classes = 16;
  spec.sizes.seq = 16;
  spec.sizes.d_model = 64;
  spec.sizes.heads = 4;
  spec.sizes.ffn = 128;
  spec.sizes.channels = 16;
  spec.sizes.image = 16;
  return spec;
}

DataOptions overhead_data(const CaseSpec& spec) {
  DataOptions d;
  d.model = spec.model;
  d.sizes = spec.sizes;
  return d;
}

void BM_HarnessStep(benchmark::State& state, const std::string& model) {
  const CaseSpec spec = overhead_case(model);
  const c10::Device cpu(c10::kCPU);
  auto training = make_training_state(spec, cpu);
  const Workload& workload = find_workload(spec.workload->name());
  const SyntheticData data(overhead_data(spec), cpu);
  for (auto _ : state) {
    // As measure_throughput: a batch vector per step, then the workload.
    const std::vector<Batch> batches{data.cached()};
    training->optimizer_skipped.assign(training->optimizers.size(), false);
    benchmark::DoNotOptimize(workload.step(*training, batches));
  }
  state.SetItemsProcessed(state.iterations() * spec.sizes.batch);
}

// The same step with nothing of ours in between: the concrete module called
// directly (no type-erased Model), the optimizer stepped directly.
template <typename Net>
void bare_step_loop(benchmark::State& state, const std::string& model) {
  const CaseSpec spec = overhead_case(model);
  const c10::Device cpu(c10::kCPU);
  torch::manual_seed(spec.seed);
  Net net(spec.sizes);
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(spec.lr).momentum(0.9));
  const SyntheticData data(overhead_data(spec), cpu);
  const Batch& batch = data.cached();
  for (auto _ : state) {
    opt.zero_grad();
    at::Tensor loss = torch::nn::functional::cross_entropy(net->forward(batch.inputs), batch.labels);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss);
  }
  state.SetItemsProcessed(state.iterations() * spec.sizes.batch);
}

void BM_BareStep(benchmark::State& state, const std::string& model) {
  if (model == "mlp") return bare_step_loop<Mlp>(state, model);
  return bare_step_loop<Transformer>(state, model);
}

BENCHMARK_CAPTURE(BM_HarnessStep, mlp, std::string("mlp"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BareStep, mlp, std::string("mlp"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_HarnessStep, transformer, std::string("transformer"))->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_BareStep, transformer, std::string("transformer"))->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ampbench

BENCHMARK_MAIN();
