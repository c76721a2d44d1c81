#include "core/precision.h"

#include <cmath>
#include <stdexcept>

namespace ampbench {

PrecisionPolicy PrecisionPolicy::parse(const std::string& name) {
  if (name == "fp32") return PrecisionPolicy(Precision::kFp32);
  if (name == "fp16") return PrecisionPolicy(Precision::kFp16);
  if (name == "bf16") return PrecisionPolicy(Precision::kBf16);
  throw std::invalid_argument("unsupported precision '" + name + "' (expected fp32, fp16 or bf16)");
}

std::string PrecisionPolicy::name() const {
  switch (precision_) {
    case Precision::kFp32: return "fp32";
    case Precision::kFp16: return "fp16";
    case Precision::kBf16: return "bf16";
  }
  return "?";
}

std::optional<c10::ScalarType> PrecisionPolicy::autocast_dtype() const {
  switch (precision_) {
    case Precision::kFp32: return std::nullopt;
    case Precision::kFp16: return c10::ScalarType::Half;
    case Precision::kBf16: return c10::ScalarType::BFloat16;
  }
  return std::nullopt;
}

double PrecisionPolicy::unit_roundoff() const {
  switch (precision_) {
    case Precision::kFp32: return std::ldexp(1.0, -24);
    case Precision::kFp16: return std::ldexp(1.0, -11);
    case Precision::kBf16: return std::ldexp(1.0, -8);
  }
  return 0.0;
}

}  // namespace ampbench
