// Float32 math as an explicit policy. On CUDA, float32 matmuls, convolutions
// and RNNs may run on TF32 tensor cores (10-bit mantissa): in torch 2.11
// cuDNN convolutions and RNNs do by default, cuBLAS matmuls do not. An "fp32"
// baseline must be IEEE float32, so every case runs inside a Float32MathGuard
// (harness/runner/runner.cpp), and the environment fingerprint records what
// the settings were (float32_math in results.json's env).
//
// at::globalContext() has two APIs for this: the legacy flags
// (setAllowTF32CuBLAS/CuDNN, float32MatmulPrecision) and the per-backend,
// per-op setFloat32Precision of torch 2.9+. Their getters refuse a state
// where the two disagree ("mix of the legacy and new APIs"), so the guard
// sets and restores both, consistently.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace ampbench::amp {

enum class Float32Math {
  kIeee,  // IEEE float32 everywhere (CUDA and oneDNN matmul, conv, RNN)
  kTf32,  // TF32 tensor-core math for CUDA matmul, conv and RNN; oneDNN IEEE
};

// The process's float32 math settings as LibTorch reports them.
struct Float32Settings {
  // Effective per-backend precision ("ieee", "tf32", "bf16", "none" = not
  // set anywhere, i.e. the backend's full float32), keyed "cuda.matmul",
  // "cuda.conv", "cuda.rnn", "mkldnn.matmul", "mkldnn.conv", "mkldnn.rnn".
  std::map<std::string, std::string> precision;
  // Legacy view: torch.backends.cuda.matmul.allow_tf32 and
  // torch.backends.cudnn.allow_tf32 ("mixed" when the two APIs disagree).
  std::string legacy_matmul_precision;  // "highest", "high", "medium"
  std::string legacy_cudnn_allow_tf32;  // "true", "false"
  // cuBLAS reduced-precision reductions inside fp16/bf16 GEMMs (split-K),
  // torch.backends.cuda.matmul.allow_{fp16,bf16}_reduced_precision_reduction.
  std::string fp16_reduction_cublas;
  std::string bf16_reduction_cublas;
  // TF32 environment overrides that are set (NVIDIA_TF32_OVERRIDE for
  // cuBLAS/cuDNN themselves, TORCH_ALLOW_TF32_CUBLAS_OVERRIDE for torch's
  // default); absent when unset.
  std::map<std::string, std::string> env_overrides;

  // Every float32 op of both backends is IEEE ("ieee" or "none").
  bool all_ieee() const;
};

Float32Settings current_float32_settings();
void to_json(nlohmann::json& j, const Float32Settings& settings);

// Why the cases that should be IEEE float32 (fp32, and fp16/bf16's float32
// ops) may not be, one sentence each; empty when they are. Two causes: an
// in-case setting that is not IEEE (`in_cases` as Float32MathGuard(kIeee)
// leaves them), or an environment override in `in_cases.env_overrides` that
// asks for TF32 beneath torch's settings (NVIDIA_TF32_OVERRIDE other than 0,
// read by cuBLAS/cuDNN themselves; TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1).
std::vector<std::string> fp32_not_ieee_reasons(const Float32Settings& in_cases);

// Why TF32 cannot run in this process although the guard asks for it
// (NVIDIA_TF32_OVERRIDE=0 turns it off inside cuBLAS/cuDNN: a tf32 case would
// be the fp32 baseline again); empty when nothing stops it.
std::string tf32_disabled_reason();

// {"process_default": ..., "in_cases": ... (under Float32MathGuard(kIeee)),
//  "in_cases_ieee": bool, "fp32_is_ieee": bool, "fp32_not_ieee_reasons":
//  [...]}: what the environment fingerprint records.
nlohmann::json float32_math_fingerprint();

// For its lifetime, sets float32 math as `math` says (both APIs,
// consistently); restores every setting it changed on destruction.
// Process-wide state: one guard at a time (cases run one after another;
// DataParallel's worker threads see the same settings).
class Float32MathGuard {
 public:
  explicit Float32MathGuard(Float32Math math = Float32Math::kIeee);
  ~Float32MathGuard();
  Float32MathGuard(const Float32MathGuard&) = delete;
  Float32MathGuard& operator=(const Float32MathGuard&) = delete;

 private:
  std::map<std::string, int> previous_precision_;  // at::Float32Precision by key, as above
  std::string previous_matmul_precision_;
  bool previous_cudnn_tf32_ = true;
};

}  // namespace ampbench::amp
