// PrecisionPolicy: the only place that knows how fp32, fp16 and bf16 differ.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>

namespace ampbench {

enum class Precision { kFp32, kFp16, kBf16 };

class PrecisionPolicy {
 public:
  explicit PrecisionPolicy(Precision precision) : precision_(precision) {}

  // Parses "fp32" | "fp16" | "bf16"; throws std::invalid_argument otherwise.
  static PrecisionPolicy parse(const std::string& name);

  Precision precision() const { return precision_; }
  std::string name() const;

  // The autocast dtype, or nullopt for fp32 (no autocast region).
  std::optional<c10::ScalarType> autocast_dtype() const;

  // fp16 needs a GradScaler; fp32 and bf16 have float32's exponent range.
  bool needs_scaler() const { return precision_ == Precision::kFp16; }

  // Whether a GradScaler may be attached at all: bf16 + scaler is a
  // configuration mistake (bf16 has float32's exponent range), fp32 + scaler is the exact-check
  // configuration.
  bool allows_scaler() const { return precision_ != Precision::kBf16; }

  // Unit roundoff of the autocast dtype (fp32: 2^-24, fp16: 2^-11, bf16: 2^-8).
  double unit_roundoff() const;

  bool operator==(const PrecisionPolicy& other) const { return precision_ == other.precision_; }

 private:
  Precision precision_;
};

}  // namespace ampbench
