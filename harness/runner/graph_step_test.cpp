// CUDA-graph replay against eager steps. Needs a CUDA device: skipped
// without one (ci/gpu-check.sh runs it on the GPU machine).
#include "runner/graph_step.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

namespace ampbench {
namespace {

CaseSpec graphed_case(const std::string& workload, Precision precision) {
  CaseSpec c;
  c.workload = workload;
  c.model = "mlp";
  c.optimizer = "adamw";
  c.optimizer_impl = optim::Impl::kFused;
  c.precision = PrecisionPolicy(precision);
  c.scaler_enabled = c.precision.needs_scaler();
  c.device = "cuda";
  c.cuda_graph = true;
  c.lr = 1e-3;
  return c;
}

TEST(GraphStep, ReplaysAreBitwiseTheEagerStepsForEachPrecisionAndWorkload) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  for (const std::string workload : {"plain", "clip_norm", "accumulation", "multi"})
    for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kO2}) {
      const auto diff = graph_difference(graphed_case(workload, p), c10::Device(c10::kCUDA, 0), 3, 4);
      EXPECT_FALSE(diff.has_value()) << workload << " " << PrecisionPolicy(p).name() << ": " << diff.value_or("");
    }
}

TEST(GraphStep, WithoutACudaDeviceNothingIsCapturedSilently) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA device is present";
  int calls = 0;
  EXPECT_ANY_THROW(GraphedStep([&] { ++calls; }, 2));
}

}  // namespace
}  // namespace ampbench
