// Ceiling probes: what this device can do at best, measured here and now, so
// that throughput figures can be read against a roofline.
//   memory bandwidth  a large device-to-device copy (at::Tensor::copy_),
//                     (bytes read + bytes written) / time, in GB/s (1e9 B/s)
//   matmul rate       an n x n x n GEMM (at::matmul_out) per dtype, 2 n^3 / time,
//                     in TFLOP/s (1e12): "fp32" (TF32 off), "tf32" (float32
//                     inputs with TF32 cuBLAS math; CUDA only, null on CPU),
//                     "fp16", "bf16", and "fp8" (e4m3 operands, per-tensor
//                     scales, bfloat16 output: at::_scaled_mm; CUDA with FP8
//                     matrix units only, null on CPU and on older GPUs)
// Each figure is the median of `repetitions` timed runs after `warmup`
// untimed ones; every run is bracketed by device synchronisation and read
// from a steady clock. Inputs are random (uniform in [1, 2) for the copy,
// normal for GEMMs), never zeros. A dtype the device cannot multiply is
// reported as null with the reason in `notes`.
#pragma once

#include <c10/core/Device.h>
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ampbench::kernels {

struct CeilingOptions {
  c10::Device device{c10::kCPU};
  int64_t gemm_size = 1024;        // n of the n x n x n GEMMs
  int64_t copy_bytes = 128 << 20;  // size of the copied buffer (read once, written once)
  int warmup = 2;
  int repetitions = 5;

  // Defaults that fill the device: CUDA 8192^3 GEMMs and a 1 GiB copy,
  // warmup 3, 10 repetitions; CPU 1024^3 GEMMs and a 128 MiB copy,
  // warmup 2, 5 repetitions.
  static CeilingOptions for_device(c10::Device device);
};

struct Ceilings {
  std::string device;  // e.g. "cpu", "cuda:0"
  double memory_bandwidth_gbs = 0.0;
  std::map<std::string, std::optional<double>> matmul_tflops;  // fp32, tf32, fp16, bf16, fp8
  int repetitions = 0;
  int64_t gemm_size = 0;
  int64_t copy_bytes = 0;
  std::map<std::string, std::string> notes;  // why a matmul_tflops entry is null
};

// Runs the probes. Throws c10::Error for invalid options or a CUDA device
// when CUDA is not available. TF32 state (at::globalContext()) is restored.
Ceilings measure_ceilings(const CeilingOptions& options);

// For its lifetime, float32 matmuls on CUDA may (enable=true) or may not use
// TF32 tensor-core math (at::globalContext().setAllowTF32CuBLAS); the previous
// state is restored on destruction. setAllowTF32CuBLAS sets both the legacy
// matmul precision and the per-backend float32Precision(CUDA, MATMUL), so
// allowTF32CuBLAS() stays consistent; the previous per-backend value
// (NONE/IEEE/TF32) is put back exactly. Not thread-safe (global state).
class ScopedCublasTf32 {
 public:
  explicit ScopedCublasTf32(bool enable);
  ~ScopedCublasTf32();
  ScopedCublasTf32(const ScopedCublasTf32&) = delete;
  ScopedCublasTf32& operator=(const ScopedCublasTf32&) = delete;

 private:
  int previous_;  // at::Float32Precision, kept as int to keep ATen/Context.h out of this header
};

// FLOPs of an (m x k) * (k x n) matrix product: 2 m n k.
inline double matmul_flops(int64_t m, int64_t n, int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

// {"device":..,"memory_bandwidth_gbs":..,"matmul_tflops":{"fp32":..,"tf32":null,..},
//  "repetitions":..,"gemm_size":..,"copy_bytes":..,"notes":{..}}
void to_json(nlohmann::json& j, const Ceilings& c);

}  // namespace ampbench::kernels
