#include "amp/float32_math.h"

#include <ATen/Context.h>
#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdlib>
#include <iostream>

namespace ampbench::amp {
namespace {

struct Slot {
  const char* key;
  at::Float32Backend backend;
  at::Float32Op op;
};

constexpr std::array<Slot, 6> kSlots = {{
    {"cuda.matmul", at::Float32Backend::CUDA, at::Float32Op::MATMUL},
    {"cuda.conv", at::Float32Backend::CUDA, at::Float32Op::CONV},
    {"cuda.rnn", at::Float32Backend::CUDA, at::Float32Op::RNN},
    {"mkldnn.matmul", at::Float32Backend::MKLDNN, at::Float32Op::MATMUL},
    {"mkldnn.conv", at::Float32Backend::MKLDNN, at::Float32Op::CONV},
    {"mkldnn.rnn", at::Float32Backend::MKLDNN, at::Float32Op::RNN},
}};

const char* matmul_precision_name(at::Float32MatmulPrecision p) {
  switch (p) {
    case at::Float32MatmulPrecision::HIGHEST:
      return "highest";
    case at::Float32MatmulPrecision::HIGH:
      return "high";
    case at::Float32MatmulPrecision::MEDIUM:
      return "medium";
  }
  return "unknown";
}

const char* reduction_name(at::CuBLASReductionOption option) {
  switch (option) {
    case at::CuBLASReductionOption::AllowReducedPrecisionWithSplitK:
      return "reduced_precision_allowed";
    case at::CuBLASReductionOption::DisallowReducedPrecisionAllowSplitK:
      return "full_precision_split_k";
    case at::CuBLASReductionOption::DisallowReducedPrecisionDisallowSplitK:
      return "full_precision_no_split_k";
  }
  return "unknown";
}

// The legacy getters TORCH_CHECK that the two APIs agree; a process where
// they do not reads as "mixed" instead of failing.
std::string legacy_matmul_precision(const at::Context& ctx) {
  try {
    return matmul_precision_name(ctx.float32MatmulPrecision());
  } catch (const c10::Error&) {
    return "mixed";
  }
}

std::string legacy_cudnn_allow_tf32(const at::Context& ctx) {
  try {
    return ctx.allowTF32CuDNN() ? "true" : "false";
  } catch (const c10::Error&) {
    return "mixed";
  }
}

}  // namespace

bool Float32Settings::all_ieee() const {
  for (const auto& [key, value] : precision)
    if (value != "ieee" && value != "none") return false;
  return true;
}

Float32Settings current_float32_settings() {
  const at::Context& ctx = at::globalContext();
  Float32Settings s;
  for (const Slot& slot : kSlots) {
    s.precision[slot.key] = at::precision2str(ctx.float32Precision(slot.backend, slot.op));
  }
  s.legacy_matmul_precision = legacy_matmul_precision(ctx);
  s.legacy_cudnn_allow_tf32 = legacy_cudnn_allow_tf32(ctx);
  s.fp16_reduction_cublas = reduction_name(ctx.allowFP16ReductionCuBLAS());
  s.bf16_reduction_cublas = reduction_name(ctx.allowBF16ReductionCuBLAS());
  for (const char* name : {"NVIDIA_TF32_OVERRIDE", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"}) {
    if (const char* value = std::getenv(name)) s.env_overrides[name] = value;
  }
  return s;
}

void to_json(nlohmann::json& j, const Float32Settings& s) {
  j = {{"precision", s.precision},
       {"legacy", {{"matmul_precision", s.legacy_matmul_precision}, {"cudnn_allow_tf32", s.legacy_cudnn_allow_tf32}}},
       {"cublas_reduction", {{"fp16", s.fp16_reduction_cublas}, {"bf16", s.bf16_reduction_cublas}}},
       {"env_overrides", s.env_overrides}};
}

std::vector<std::string> fp32_not_ieee_reasons(const Float32Settings& in_cases) {
  std::vector<std::string> reasons;
  const auto& env = in_cases.env_overrides;
  // Only 0 is documented (never TF32); any other value hands the choice back
  // to the libraries, beneath every setting ampbench makes.
  if (const auto it = env.find("NVIDIA_TF32_OVERRIDE"); it != env.end() && it->second != "0")
    reasons.push_back("NVIDIA_TF32_OVERRIDE=" + it->second +
                      " is set: cuBLAS/cuDNN read it beneath torch's settings and may use TF32 for float32 "
                      "(only NVIDIA_TF32_OVERRIDE=0, never TF32, is IEEE)");
  // torch documents it as forcing TF32 for cuBLAS float32 matmuls over
  // set_float32_matmul_precision; torch 2.11 applies it as the process
  // default, which the guard overrides, but older versions made the setter
  // powerless: an fp32 baseline must not depend on which.
  if (const auto it = env.find("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"); it != env.end() && it->second == "1")
    reasons.push_back("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 is set: torch documents it as forcing TF32 for float32 "
                      "cuBLAS matmuls, overriding the IEEE setting the cases make");
  std::string not_ieee;
  for (const auto& [key, value] : in_cases.precision)
    if (value != "ieee" && value != "none") not_ieee += (not_ieee.empty() ? "" : ", ") + key + "=" + value;
  if (!not_ieee.empty())
    reasons.push_back("the in-case float32 settings are not all IEEE: " + not_ieee);
  return reasons;
}

std::string tf32_disabled_reason() {
  const char* value = std::getenv("NVIDIA_TF32_OVERRIDE");
  if (value && std::string(value) == "0")
    return "NVIDIA_TF32_OVERRIDE=0 turns TF32 off inside cuBLAS/cuDNN: a tf32 case would be IEEE fp32, "
           "identical to its baseline";
  return "";
}

nlohmann::json float32_math_fingerprint() {
  const Float32Settings process_default = current_float32_settings();
  Float32Settings in_cases;
  {
    // Measured, not assumed: the settings as the guard every case runs in
    // leaves them.
    const Float32MathGuard guard(Float32Math::kIeee);
    in_cases = current_float32_settings();
  }
  const std::vector<std::string> reasons = fp32_not_ieee_reasons(in_cases);
  return {{"process_default", process_default},
          {"in_cases", in_cases},
          {"in_cases_ieee", in_cases.all_ieee()},
          {"fp32_is_ieee", reasons.empty()},
          {"fp32_not_ieee_reasons", reasons}};
}

Float32MathGuard::Float32MathGuard(Float32Math math) {
  at::Context& ctx = at::globalContext();
  // Read everything first, change nothing before.
  for (const Slot& slot : kSlots)
    previous_precision_[slot.key] = static_cast<int>(ctx.float32Precision(slot.backend, slot.op));
  // The legacy getters throw on a state where the two APIs disagree (e.g.
  // only cuda.all was set); then the legacy view is restored as the new one
  // implies, which is consistent.
  const auto tf32_now = [&](const char* key) {
    return previous_precision_.at(key) == static_cast<int>(at::Float32Precision::TF32);
  };
  previous_matmul_precision_ = legacy_matmul_precision(ctx);
  if (previous_matmul_precision_ == "mixed") previous_matmul_precision_ = tf32_now("cuda.matmul") ? "high" : "highest";
  const std::string cudnn = legacy_cudnn_allow_tf32(ctx);
  previous_cudnn_tf32_ = cudnn == "mixed" ? tf32_now("cuda.conv") : cudnn == "true";

  const bool tf32 = math == Float32Math::kTf32;
  const auto cuda = tf32 ? at::Float32Precision::TF32 : at::Float32Precision::IEEE;
  // The legacy setters keep both views in step (setAllowTF32CuBLAS writes
  // the legacy matmul precision and cuda.matmul; setAllowTF32CuDNN the
  // legacy cuDNN flag and cuda.conv/rnn, as "none" when off), then every op
  // is named explicitly so that no parent setting (e.g. cuda.all = tf32)
  // leaks through a "none".
  ctx.setAllowTF32CuBLAS(tf32);
  ctx.setAllowTF32CuDNN(tf32);
  for (const Slot& slot : kSlots)
    ctx.setFloat32Precision(slot.backend, slot.op,
                            slot.backend == at::Float32Backend::CUDA ? cuda : at::Float32Precision::IEEE);
}

Float32MathGuard::~Float32MathGuard() {
  try {
    at::Context& ctx = at::globalContext();
    // Legacy first (each legacy setter also writes new-API entries), then the
    // effective per-op values as they were.
    ctx.setFloat32MatmulPrecision(previous_matmul_precision_);
    ctx.setAllowTF32CuDNN(previous_cudnn_tf32_);
    for (const Slot& slot : kSlots) {
      const auto previous = static_cast<at::Float32Precision>(previous_precision_.at(slot.key));
      ctx.setFloat32Precision(slot.backend, slot.op, previous);
    }
  } catch (const std::exception& e) {
    std::cerr << "ampbench: warning: could not restore the float32 math settings: " << e.what() << "\n";
  }
}

}  // namespace ampbench::amp
