#include "core/precision.h"

#include <cmath>
#include <stdexcept>

namespace ampbench {

const std::vector<std::string>& PrecisionPolicy::names() {
  static const std::vector<std::string> all = {"fp32",           "fp16",        "bf16",
                                                   "tf32",           "o2",          "o3",
                                                   "fp8_tensorwise", "fp8_rowwise", "fp8_delayed", "mxfp8",
                                                   "nvfp4",          "fp8_blockwise"};
  return all;
}

PrecisionPolicy PrecisionPolicy::parse(const std::string& name) {
  if (name == "fp32") return PrecisionPolicy(Precision::kFp32);
  if (name == "fp16") return PrecisionPolicy(Precision::kFp16);
  if (name == "bf16") return PrecisionPolicy(Precision::kBf16);
  if (name == "tf32") return PrecisionPolicy(Precision::kTf32);
  if (name == "o2") return PrecisionPolicy(Precision::kO2);
  if (name == "o3") return PrecisionPolicy(Precision::kO3);
  if (name == "fp8_tensorwise") return PrecisionPolicy(Precision::kFp8Tensorwise);
  if (name == "fp8_rowwise") return PrecisionPolicy(Precision::kFp8Rowwise);
  if (name == "fp8_delayed") return PrecisionPolicy(Precision::kFp8Delayed);
  if (name == "mxfp8") return PrecisionPolicy(Precision::kMxfp8);
  if (name == "nvfp4") return PrecisionPolicy(Precision::kNvfp4);
  if (name == "fp8_blockwise") return PrecisionPolicy(Precision::kFp8Blockwise);
  throw std::invalid_argument(
      "unsupported precision '" + name +
      "' (expected fp32, fp16, bf16, tf32, o2, o3, fp8_tensorwise, fp8_rowwise, fp8_delayed, mxfp8, nvfp4 or fp8_blockwise)");
}

std::string PrecisionPolicy::name() const {
  switch (precision_) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
    case Precision::kTf32: return "tf32";
    case Precision::kO2: return "o2";
    case Precision::kO3: return "o3";
    case Precision::kFp8Tensorwise: return "fp8_tensorwise";
    case Precision::kFp8Rowwise: return "fp8_rowwise";
    case Precision::kFp8Delayed: return "fp8_delayed";
    case Precision::kMxfp8: return "mxfp8";
    case Precision::kNvfp4: return "nvfp4";
    case Precision::kFp8Blockwise: return "fp8_blockwise";
  }
  return "?";
}

std::optional<c10::ScalarType> PrecisionPolicy::autocast_dtype() const {
  switch (precision_) {
    case Precision::kFp32: return std::nullopt;
    case Precision::kFp16: return c10::ScalarType::Half;
    case Precision::kBf16:
    case Precision::kFp8Tensorwise:
    case Precision::kFp8Rowwise:
    case Precision::kFp8Delayed: return c10::ScalarType::BFloat16;
    case Precision::kTf32:
    case Precision::kO2:
    case Precision::kO3:
    case Precision::kMxfp8:
    case Precision::kNvfp4:
    case Precision::kFp8Blockwise: return std::nullopt;
  }
  return std::nullopt;
}

c10::ScalarType PrecisionPolicy::model_dtype() const {
  return precision_ == Precision::kO2 || precision_ == Precision::kO3 ? c10::ScalarType::Half : c10::ScalarType::Float;
}

std::string PrecisionPolicy::ceiling_name() const {
  if (is_fp8()) return "fp8";
  return model_dtype() == c10::ScalarType::Half ? "fp16" : name();
}

bool PrecisionPolicy::tolerance_row_optional() const {
  return precision_ == Precision::kTf32 || precision_ == Precision::kO2 || precision_ == Precision::kO3 || is_fp8();
}

amp::Float32Math PrecisionPolicy::float32_math() const {
  return precision_ == Precision::kTf32 ? amp::Float32Math::kTf32 : amp::Float32Math::kIeee;
}

std::string PrecisionPolicy::scaler_refusal() const {
  if (allows_scaler()) return "";
  if (precision_ == Precision::kO3)
    return "o3 with a GradScaler is a configuration mistake: O3 trains float16 weights with float16 gradients, "
           "which a GradScaler cannot unscale in place (PyTorch's refuses them too); use o2 for float16 with loss "
           "scaling and float32 master weights";
  if (is_fp8())
    return name() + " with a GradScaler is a configuration mistake: an FP8 recipe scales each GEMM operand into "
                    "8 bits itself and runs everything else in bfloat16 or float32 (float32's exponent range); remove the "
                    "scaler";
  if (precision_ == Precision::kTf32)
    return "tf32 with a GradScaler is a configuration mistake: tf32 keeps float32 tensors (float32's exponent "
           "range) and only rounds the tensor-core products' mantissas, so loss scaling is unneeded; remove the "
           "scaler or use fp16";
  return "bf16 with a GradScaler is a configuration mistake: bfloat16 has float32's exponent range, "
         "so loss scaling is unneeded; remove the scaler or use fp16";
}

double PrecisionPolicy::unit_roundoff() const {
  switch (precision_) {
    case Precision::kFp32: return std::ldexp(1.0, -24);
    case Precision::kFp16: return std::ldexp(1.0, -11);
    case Precision::kBf16: return std::ldexp(1.0, -8);
    case Precision::kTf32:
    case Precision::kO2:
    case Precision::kO3: return std::ldexp(1.0, -11);
    case Precision::kFp8Tensorwise:
    case Precision::kFp8Rowwise:
    case Precision::kFp8Delayed:
    case Precision::kMxfp8:
    case Precision::kFp8Blockwise: return std::ldexp(1.0, -4);
    case Precision::kNvfp4: return std::ldexp(1.0, -2);  // E2M1: one mantissa bit
  }
  return 0.0;
}

}  // namespace ampbench
