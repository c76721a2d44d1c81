// The environment fingerprint every results file carries: what ran, where,
// with which software. The gate only compares throughput between matching
// fingerprints.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ampbench {

struct TorchBuild {
  bool cuda = false;
  bool distributed = false;
  bool gloo = false;
  bool nccl = false;
};

struct EnvFingerprint {
  std::string host;
  std::string os;
  std::string cpu_model;
  // The processor's generation where its name may not say it: under a
  // hypervisor every AMD EPYC can be named "AMD EPYC", Zen 4 (family 25)
  // and Zen 5 (family 26) alike, and they differ in speed (cpu_id_of).
  std::string cpu_id = "none";
  int cpu_cores = 0;
  // The features that decide how mixed precision runs on this CPU (see
  // cpu_kind_of): half-precision arithmetic is native or emulated.
  std::vector<std::string> cpu_features;
  std::string cpu_kind = "none";
  // What the kernels may use, which can be less than the CPU has: ATen's
  // dispatch level (at::get_cpu_capability, lowered by ATEN_CPU_CAPABILITY)
  // and oneDNN's ceiling (ONEDNN_MAX_CPU_ISA, "" when unset). Setting both
  // to avx2 on an AVX-512 machine reproduces an AVX2-only CPU's
  // half-precision costs (docs/build-times.md).
  std::string cpu_capability;
  std::string onednn_max_cpu_isa;
  std::string device = "cpu";  // the best device present: "cuda" or "cpu"
  // GPU fields are "none" without a usable CUDA device.
  std::string gpu_name = "none";
  std::string compute_capability = "none";
  int gpu_count = 0;
  std::string driver = "none";
  std::string cuda_runtime = "none";
  std::string cudnn = "none";
  std::string nccl = "none";
  std::string libtorch_version;
  TorchBuild torch_build;
  std::string compiler;
  std::string git_commit = "none";
  bool git_dirty = false;
  // Float32 math (amp/float32_math.h): the process defaults, the settings
  // every case runs under, cuBLAS's reduced-precision reduction flags and
  // the TF32 environment overrides that are set.
  nlohmann::json float32_math;
};

// Probes the machine. Never throws: a field that cannot be read is "none".
EnvFingerprint probe_environment();

// "<vendor> family F model M" from the text of /proc/cpuinfo (x86; Arm:
// "arm implementer I part P"), read from the first processor listed;
// "none" when it names neither. Stepping is left out: it does not change
// a kernel's speed or arithmetic.
std::string cpu_id_of(const std::string& cpuinfo);

// The mixed-precision-relevant features named in a /proc/cpuinfo "flags"
// line, in a fixed order: avx2, avx512f, avx512_bf16, avx512_fp16, amx_bf16,
// amx_fp16.
std::vector<std::string> cpu_features_of(const std::string& flags_line);

// The CPU kind a figure depends on: "amx" (bf16 matrix tiles), "avx512_bf16"
// (native bf16 dot products), "avx512", "avx2" (no native half precision:
// fp16/bf16 arithmetic is converted to float and back), or "other".
std::string cpu_kind_of(const std::vector<std::string>& features);

nlohmann::json to_json(const EnvFingerprint& env);

// Human-readable "key: value" lines.
std::string to_text(const EnvFingerprint& env);

// "major.minor.patch" of the NCCL that LibTorch was built with, from
// torch::cuda::nccl::version(): major << 32 | minor << 16 | patch (as Python's
// torch.cuda.nccl.version() unpacks it). E.g. 8591769609 -> "2.28.9".
std::string nccl_version_from_torch(std::uint64_t packed);

// "major.minor.patch" from NCCL's own version code (ncclGetVersion, NCCL_VERSION_CODE):
// major*10000 + minor*100 + patch since NCCL 2.9 (22805 -> "2.28.5"),
// major*1000 + minor*100 + patch before (2708 -> "2.7.8"). Throws
// std::invalid_argument on a code below 100 (0.1.0), which NCCL never made.
std::string nccl_version_from_code(long code);

}  // namespace ampbench
