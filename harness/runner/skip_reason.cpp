// Why a case cannot run where it was asked to (the device, the build, the
// environment, or its size): Runner::run records it as "skipped" with it.
#include <torch/cuda.h>

#include "amp/float32_math.h"
#include "runner/runner.h"
#include "suite/memory_estimate.h"

#ifdef AMPBENCH_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace ampbench {

std::string skip_reason(const CaseSpec& spec) {
  const bool cuda = spec.device == DeviceKind::kCuda;
  const std::string device = to_string(spec.device);
  if (spec.cuda_graph && !cuda) return "CUDA-graph capture needs a CUDA device, not " + device;
  if (spec.gpu_sized && !cuda)
    return "sized for a GPU (the suite is \"gpu_sized\"): on " + device +
           " it would run for hours; run it with --device cuda";
  if (spec.precision.cuda_only() && !cuda)
    return spec.precision.name() + " is CUDA tensor-core math; on " + device +
           " it would be IEEE fp32, identical to the baseline";
  if (!cuda && spec.model) {
    if (const auto it = spec.model->cpu_unsupported.find(spec.precision.precision());
        it != spec.model->cpu_unsupported.end())
      return "PyTorch cannot train " + spec.model->name + " in " + spec.precision.name() + " on " + device + ": " +
             it->second;
  }
  if (spec.precision.float32_math() == amp::Float32Math::kTf32) {
    if (std::string why = amp::tf32_disabled_reason(); !why.empty()) return why;
  }
  if (cuda) {
    if (!torch::cuda::is_available()) return "no CUDA device is available";
#ifdef AMPBENCH_HAVE_CUDA
    const auto* props = at::cuda::getDeviceProperties(0);
    const int cc = props->major * 10 + props->minor;
    const std::string name = props->name;
    if (spec.precision.precision() == Precision::kBf16 && cc < 80)
      return "bf16 needs compute capability 8.0 or newer; " + name + " has " + std::to_string(cc / 10) + "." +
             std::to_string(cc % 10);
    if (spec.precision.precision() == Precision::kTf32 && cc < 80)
      return "tf32 tensor cores need compute capability 8.0 or newer; " + name + " has " +
             std::to_string(cc / 10) + "." + std::to_string(cc % 10);
    // torch's scaled matmul takes 8-bit operands from Ada and Hopper on.
    if (spec.precision.is_fp8() && cc < 89)
      return "FP8 GEMMs need compute capability 8.9 or newer; " + name + " has " + std::to_string(cc / 10) + "." +
             std::to_string(cc % 10);
    if ((spec.precision.precision() == Precision::kFp16 || spec.precision.model_dtype() == at::kHalf) && cc < 70)
      return "fp16 tensor cores need compute capability 7.0 or newer; " + name + " has " +
             std::to_string(cc / 10) + "." + std::to_string(cc % 10);
    if (spec.gpu_sized)
      if (const std::string why = memory_refusal(spec, static_cast<double>(props->totalGlobalMem)); !why.empty())
        return "on " + name + ": " + why;
#else
    return "this build of ampbench has no CUDA support";
#endif
  }
  return "";
}

}  // namespace ampbench
