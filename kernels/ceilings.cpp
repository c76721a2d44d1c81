#include "kernels/ceilings.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/_scaled_mm.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/rand.h>
#include <ATen/ops/randn.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>
#include "core/json.h"  // nlohmann/json, version-checked
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <vector>

namespace ampbench::kernels {
namespace {

void synchronize(const c10::Device& device) {
  if (device.is_cuda()) torch::cuda::synchronize(device.index());
}

// Median seconds of `repetitions` synchronised runs of fn after `warmup` runs.
double median_seconds(const c10::Device& device, int warmup, int repetitions,
                      const std::function<void()>& fn) {
  for (int i = 0; i < warmup; ++i) fn();
  std::vector<double> times;
  times.reserve(static_cast<size_t>(repetitions));
  for (int i = 0; i < repetitions; ++i) {
    synchronize(device);
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    synchronize(device);
    const auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 == 1 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
}

double gemm_tflops(const CeilingOptions& o, c10::ScalarType dtype) {
  const auto options = at::TensorOptions().device(o.device).dtype(c10::kFloat);
  const at::Tensor a = at::randn({o.gemm_size, o.gemm_size}, options).to(dtype);
  const at::Tensor b = at::randn({o.gemm_size, o.gemm_size}, options).to(dtype);
  at::Tensor c = at::empty_like(a);
  const double seconds =
      median_seconds(o.device, o.warmup, o.repetitions, [&] { at::matmul_out(c, a, b); });
  return matmul_flops(o.gemm_size, o.gemm_size, o.gemm_size) / seconds / 1e12;
}

// e4m3 x e4m3 with per-tensor scales and a bfloat16 output, the GEMM of
// torchao's tensorwise recipe. The second operand is column-major, as the
// scaled matmul requires.
double fp8_gemm_tflops(const CeilingOptions& o) {
  const auto options = at::TensorOptions().device(o.device).dtype(c10::kFloat);
  const at::Tensor a = at::randn({o.gemm_size, o.gemm_size}, options).to(c10::ScalarType::Float8_e4m3fn);
  const at::Tensor b = at::randn({o.gemm_size, o.gemm_size}, options).to(c10::ScalarType::Float8_e4m3fn).t();
  const at::Tensor scale = at::ones({}, options);
  const double seconds = median_seconds(o.device, o.warmup, o.repetitions, [&] {
    at::_scaled_mm(a, b, scale, scale, /*bias=*/std::nullopt, /*scale_result=*/std::nullopt, c10::kBFloat16);
  });
  return matmul_flops(o.gemm_size, o.gemm_size, o.gemm_size) / seconds / 1e12;
}

// FP8 is a ceiling only where matrix units multiply FP8 (CUDA compute
// capability 8.9 and later): a CPU multiplies the 8-bit operands in wider
// arithmetic, so its rate is an emulation's and is not reported as one.
void measure_fp8(const CeilingOptions& o, Ceilings& out) {
  out.matmul_tflops["fp8"] = std::nullopt;
  if (!o.device.is_cuda()) {
    out.notes["fp8"] = "FP8 GEMMs on a CPU are emulated in wider arithmetic (no FP8 matrix units): not a ceiling";
    return;
  }
  try {
    out.matmul_tflops["fp8"] = fp8_gemm_tflops(o);
  } catch (const c10::Error& e) {
    out.notes["fp8"] = std::string("scaled matmul (e4m3) failed: ") + e.what_without_backtrace();
  }
}

}  // namespace

ScopedCublasTf32::ScopedCublasTf32(bool enable)
    : previous_(static_cast<int>(
          at::globalContext().float32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL))) {
  at::globalContext().setAllowTF32CuBLAS(enable);
}

ScopedCublasTf32::~ScopedCublasTf32() {
  const auto previous = static_cast<at::Float32Precision>(previous_);
  at::Context& ctx = at::globalContext();
  ctx.setAllowTF32CuBLAS(previous == at::Float32Precision::TF32);
  ctx.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL, previous);
}

CeilingOptions CeilingOptions::for_device(c10::Device device) {
  CeilingOptions o;
  o.device = device;
  if (device.is_cuda()) {
    o.gemm_size = 8192;
    o.copy_bytes = int64_t{1} << 30;
    o.warmup = 3;
    o.repetitions = 10;
  }
  return o;
}

Ceilings measure_ceilings(const CeilingOptions& o) {
  TORCH_CHECK(o.device.is_cpu() || o.device.is_cuda(),
              "measure_ceilings: only CPU and CUDA devices are supported, got ", o.device);
  TORCH_CHECK(!o.device.is_cuda() || torch::cuda::is_available(),
              "measure_ceilings: ", o.device, " requested but CUDA is not available");
  TORCH_CHECK(o.gemm_size > 0, "measure_ceilings: gemm_size must be positive, got ", o.gemm_size);
  TORCH_CHECK(o.copy_bytes >= 4, "measure_ceilings: copy_bytes must be at least 4, got ",
              o.copy_bytes);
  TORCH_CHECK(o.repetitions > 0, "measure_ceilings: repetitions must be positive, got ",
              o.repetitions);
  TORCH_CHECK(o.warmup >= 0, "measure_ceilings: warmup must be >= 0, got ", o.warmup);

  c10::OptionalDeviceGuard guard;
  if (o.device.is_cuda() && o.device.has_index()) guard.reset_device(o.device);

  Ceilings out;
  out.repetitions = o.repetitions;
  out.gemm_size = o.gemm_size;

  // Memory bandwidth: copy a float32 buffer of copy_bytes.
  {
    const int64_t n = o.copy_bytes / 4;
    const at::Tensor src =
        at::rand({n}, at::TensorOptions().device(o.device).dtype(c10::kFloat)).add_(1.0);
    at::Tensor dst = at::empty_like(src);
    out.device = src.device().str();
    out.copy_bytes = n * 4;
    const double seconds =
        median_seconds(o.device, o.warmup, o.repetitions, [&] { dst.copy_(src); });
    out.memory_bandwidth_gbs = 2.0 * static_cast<double>(out.copy_bytes) / seconds / 1e9;
  }

  struct Kind {
    const char* name;
    c10::ScalarType dtype;
    bool tf32;
  };
  const Kind kinds[] = {{"fp32", c10::kFloat, false},
                        {"tf32", c10::kFloat, true},
                        {"fp16", c10::kHalf, false},
                        {"bf16", c10::kBFloat16, false}};
  for (const Kind& k : kinds) {
    if (k.tf32 && !o.device.is_cuda()) {
      out.matmul_tflops[k.name] = std::nullopt;
      out.notes[k.name] = "TF32 is a CUDA matrix-unit mode; not measured on CPU";
      continue;
    }
    try {
      std::optional<ScopedCublasTf32> tf32;
      if (o.device.is_cuda()) tf32.emplace(k.tf32);  // fp32 measured with TF32 off
      out.matmul_tflops[k.name] = gemm_tflops(o, k.dtype);
    } catch (const c10::Error& e) {
      out.matmul_tflops[k.name] = std::nullopt;
      out.notes[k.name] = std::string("matmul failed: ") + e.what_without_backtrace();
    }
  }
  measure_fp8(o, out);
  return out;
}

void to_json(nlohmann::json& j, const Ceilings& c) {
  nlohmann::json tflops = nlohmann::json::object();
  for (const auto& [name, value] : c.matmul_tflops) {
    tflops[name] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  }
  j = nlohmann::json{{"device", c.device},
                     {"memory_bandwidth_gbs", c.memory_bandwidth_gbs},
                     {"matmul_tflops", tflops},
                     {"repetitions", c.repetitions},
                     {"gemm_size", c.gemm_size},
                     {"copy_bytes", c.copy_bytes},
                     {"notes", c.notes}};
}

}  // namespace ampbench::kernels
