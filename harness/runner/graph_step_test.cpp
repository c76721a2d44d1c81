// CUDA-graph replay against eager steps. Needs a CUDA device: skipped
// without one (ci/gpu-check.sh runs it on the GPU machine). What a capture
// needs of the step itself, that it reads nothing on the host, is checked
// on any device.
#include "runner/graph_step.h"

#include <ATen/record_function.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <atomic>

#include "runner/runner.h"
#include "spec/workload_traits.h"

namespace ampbench {
namespace {

CaseSpec graphed_case(const std::string& workload, Precision precision) {
  CaseSpec c;
  c.workload = &workload_traits(workload);
  c.model = find_model_family("mlp");
  c.optimizer = optim::Kind::kAdamW;
  c.optimizer_impl = optim::Impl::kFused;
  c.precision = PrecisionPolicy(precision);
  c.scaler_enabled = c.precision.needs_scaler();
  c.device = DeviceKind::kCuda;
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

// Counts the host reads of tensor values (every .item() and bool(tensor)
// lands in aten::_local_scalar_dense) on any thread while it lives, except
// inside the fused optimizer kernels: their CPU versions read the step count
// and the inf flag on the host (ATen's FusedAdam/FusedSGD), their CUDA ones,
// which a capture holds, on the device.
class HostReads {
 public:
  HostReads()
      : handle_(at::addGlobalCallback(
            at::RecordFunctionCallback(&HostReads::enter, &HostReads::leave).scopes({at::RecordScope::FUNCTION}))) {
    count_ = 0;
  }
  ~HostReads() { at::removeCallback(handle_); }
  HostReads(const HostReads&) = delete;
  HostReads& operator=(const HostReads&) = delete;
  int count() const { return count_; }

 private:
  static bool fused_kernel(const at::RecordFunction& fn) {
    const std::string_view name = fn.name();
    return name == "aten::_fused_adamw_" || name == "aten::_fused_sgd_";
  }
  static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn) {
    if (fused_kernel(fn)) ++inside_fused_;
    if (inside_fused_ == 0 && std::string_view(fn.name()) == "aten::_local_scalar_dense") ++count_;
    return nullptr;
  }
  static void leave(const at::RecordFunction& fn, at::ObserverContext*) {
    if (fused_kernel(fn)) --inside_fused_;
  }
  static inline std::atomic<int> count_{0};
  static inline thread_local int inside_fused_ = 0;
  at::CallbackHandle handle_;
};

// Host reads in one timed step (after one warm-up step) of `c` on the CPU.
int host_reads_in_a_timed_step(CaseSpec c) {
  c.device = DeviceKind::kCpu;
  TimedTraining timed(c, c10::Device(c10::kCPU));
  timed.step();
  const HostReads reads;
  timed.step();
  return reads.count();
}

// A capture fails on the first host read ("operation not permitted when
// stream is capturing"); the CPU runs the same host code, so a read that
// creeps into a capturable step shows here without a GPU.
TEST(GraphStep, TheStepsACaptureHoldsReadNothingOnTheHost) {
  for (const std::string workload : {"plain", "clip_norm", "clip_value", "accumulation", "multi"})
    for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kBf16, Precision::kO2})
      EXPECT_EQ(host_reads_in_a_timed_step(graphed_case(workload, p)), 0) << workload << " " << PrecisionPolicy(p).name();
  // The probe sees reads: the loop optimizer's scaler step reads the inf
  // flag, LibTorch's clip returns the norm as a double.
  CaseSpec loop = graphed_case("plain", Precision::kFp16);
  loop.optimizer_impl = optim::Impl::kLoop;
  EXPECT_GE(host_reads_in_a_timed_step(loop), 1);
  loop.workload = &workload_traits("clip_norm");
  loop.precision = PrecisionPolicy(Precision::kFp32);
  loop.scaler_enabled = false;
  EXPECT_GE(host_reads_in_a_timed_step(loop), 1);
}

TEST(GraphStep, WithoutACudaDeviceNothingIsCapturedSilently) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "a CUDA device is present";
  int calls = 0;
  EXPECT_ANY_THROW(GraphedStep([&] { ++calls; }, 2));
}

}  // namespace
}  // namespace ampbench
