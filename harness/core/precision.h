// PrecisionPolicy: the only place that knows how fp32, fp16, bf16 and tf32
// differ.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>
#include <vector>

#include "amp/float32_math.h"

namespace ampbench {

// kTf32 comes last: the envelope's replica seeds mix in the enum's value, so
// the existing precisions keep their seeds (and their recorded envelopes).
enum class Precision { kFp32, kFp16, kBf16, kTf32 };

class PrecisionPolicy {
 public:
  explicit PrecisionPolicy(Precision precision) : precision_(precision) {}

  // Parses one of names(); throws std::invalid_argument otherwise.
  static PrecisionPolicy parse(const std::string& name);
  // Every precision name, in the order suites and tables list them.
  static const std::vector<std::string>& names();

  Precision precision() const { return precision_; }
  std::string name() const;

  // The autocast dtype, or nullopt for fp32 and tf32 (no autocast region:
  // tf32 keeps float32 tensors and rounds inside the tensor cores).
  std::optional<c10::ScalarType> autocast_dtype() const;

  // The float32 math the whole case runs under (Float32MathGuard): IEEE,
  // except tf32, whose CUDA matmuls and convolutions use TF32 tensor cores.
  amp::Float32Math float32_math() const;

  // tf32 is CUDA tensor-core math; on a CPU it would be IEEE float32, i.e.
  // the fp32 baseline again.
  bool cuda_only() const { return precision_ == Precision::kTf32; }

  // fp16 needs a GradScaler; fp32, bf16 and tf32 have float32's exponent range.
  bool needs_scaler() const { return precision_ == Precision::kFp16; }

  // Whether a GradScaler may be attached at all: fp32 + scaler is the
  // exact-check configuration; bf16 or tf32 + scaler is a configuration
  // mistake (float32's exponent range needs no scaling); scaler_refusal() says why.
  bool allows_scaler() const { return precision_ == Precision::kFp32 || precision_ == Precision::kFp16; }
  std::string scaler_refusal() const;

  // Whether float16 gradient underflow is a question for this precision
  // (kernels/grad_health): not for bf16 and tf32, which have float32's range.
  bool float16_range_matters() const { return precision_ == Precision::kFp32 || precision_ == Precision::kFp16; }

  // Unit roundoff of the arithmetic (fp32: 2^-24, fp16 and tf32: 2^-11, bf16:
  // 2^-8); tf32 has fp16's 10-bit mantissa.
  double unit_roundoff() const;

  bool operator==(const PrecisionPolicy& other) const { return precision_ == other.precision_; }

 private:
  Precision precision_;
};

}  // namespace ampbench
