// PrecisionPolicy: the only place that knows how fp32, fp16, bf16, tf32 and
// Apex's O2 and O3 differ.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string>
#include <vector>

#include "amp/float32_math.h"

namespace ampbench {

// Later precisions come last: the envelope's replica seeds mix in the enum's
// value, so the existing precisions keep their seeds (and their recorded
// envelopes). fp16 is Apex's O1 (autocast); kO2 and kO3 are its other opt
// levels (docs/semantics.md#o2-and-o3):
//   O2: a float16 copy of the model runs forward and backward (BatchNorm kept
//       float32); the optimizer updates float32 master weights; loss scaling.
//   O3: everything float16, no master weights, no loss scaling: the speed of
//       light, whose equivalence verdict is reported, not required.
// The FP8 precisions run the model's convertible Linear layers' GEMMs in 8-bit
// floats under one recipe each (docs/fp8.md: tensorwise, rowwise, delayed),
// everything else under bf16 autocast, with float32 weights. mxfp8 runs them
// as torchao's emulated MXFP8 path and everything else in float32: that path
// takes one dtype for both GEMM operands, so a bf16 activation on a float32
// weight (autocast's case) is one it refuses. nvfp4 likewise (4-bit E2M1
// blocks under E4M3 scales, emulated; fp8/nvfp4_linear.h), and fp8_blockwise
// (float32 scales per 1 x 128 and 128 x 128 tile, emulated;
// fp8/blockwise_linear.h).
enum class Precision {
  kFp32, kFp16, kBf16, kTf32, kO2, kO3, kFp8Tensorwise, kFp8Rowwise, kFp8Delayed, kMxfp8, kNvfp4,
  kFp8Blockwise
};

class PrecisionPolicy {
 public:
  explicit PrecisionPolicy(Precision precision) : precision_(precision) {}

  // Parses one of names(); throws std::invalid_argument otherwise.
  static PrecisionPolicy parse(const std::string& name);
  // Every precision name, in the order suites and tables list them.
  static const std::vector<std::string>& names();

  Precision precision() const { return precision_; }
  std::string name() const;

  // Whether the case's Linear layers run in FP8 (which recipe is the
  // precision's: fp8/fp8_recipe.h).
  bool is_fp8() const {
    return precision_ == Precision::kFp8Tensorwise || precision_ == Precision::kFp8Rowwise ||
           precision_ == Precision::kFp8Delayed || precision_ == Precision::kMxfp8 ||
           precision_ == Precision::kNvfp4 || precision_ == Precision::kFp8Blockwise;
  }

  // The autocast dtype (bfloat16 for the FP8 precisions' other ops), or nullopt for fp32 and tf32 (no autocast region:
  // tf32 keeps float32 tensors and rounds inside the tensor cores) and for O2
  // and O3 (the model itself is float16).
  std::optional<c10::ScalarType> autocast_dtype() const;

  // The float32 math the whole case runs under (Float32MathGuard): IEEE,
  // except tf32, whose CUDA matmuls and convolutions use TF32 tensor cores.
  amp::Float32Math float32_math() const;

  // The dtype the model's parameters are cast to (float16 for O2 and O3;
  // float32 otherwise, autocast casting per op).
  c10::ScalarType model_dtype() const;
  // O2: the optimizer updates float32 master copies of the float16 model's
  // parameters, and BatchNorm stays float32.
  bool master_weights() const { return precision_ == Precision::kO2; }
  // The dtype of the weights the optimizer updates, and of the gradients it
  // reads (and clipping bounds): float16 for O3 only.
  c10::ScalarType trained_dtype() const {
    return precision_ == Precision::kO3 ? c10::ScalarType::Half : c10::ScalarType::Float;
  }
  bool keeps_batchnorm_fp32() const { return precision_ == Precision::kO2; }

  // Whether a mixed-precision case's equivalence verdict decides the run
  // (expect "pass"), or is reported only (expect "report"): O3 trains float16
  // weights without master copies, so small updates are lost to rounding.
  bool verdict_required() const { return precision_ != Precision::kO3; }

  // The row of the measured matrix ceilings this precision's math runs at
  // (O2 and O3 multiply in float16; the FP8 precisions at the fp8 row).
  std::string ceiling_name() const;

  // tf32, O2, O3 and FP8 came after the first suites: a suite declares their
  // tolerance row only when it runs them.
  bool tolerance_row_optional() const;

  // tf32 is CUDA tensor-core math; on a CPU it would be IEEE float32, i.e.
  // the fp32 baseline again.
  bool cuda_only() const { return precision_ == Precision::kTf32; }

  // fp16 and O2 need a GradScaler; fp32, bf16 and tf32 have float32's
  // exponent range, O3 is defined without one, and FP8 recipes scale each
  // GEMM operand themselves.
  bool needs_scaler() const { return precision_ == Precision::kFp16 || precision_ == Precision::kO2; }

  // Whether a GradScaler may be attached at all: fp32 + scaler is the
  // exact-check configuration; bf16 or tf32 + scaler is a configuration
  // mistake (float32's exponent range needs no scaling); O3's float16
  // gradients cannot be unscaled in place (as PyTorch's GradScaler refuses);
  // scaler_refusal() says why.
  bool allows_scaler() const {
    return precision_ == Precision::kFp32 || precision_ == Precision::kFp16 || precision_ == Precision::kO2;
  }
  std::string scaler_refusal() const;

  // Whether float16 gradient underflow is a question for this precision
  // (kernels/grad_health): not for bf16, tf32 and FP8 (bf16 around float32
  // gradients), which have float32's range.
  bool float16_range_matters() const {
    return precision_ != Precision::kBf16 && precision_ != Precision::kTf32 && !is_fp8();
  }

  // Unit roundoff of the arithmetic (fp32: 2^-24, fp16, O2, O3 and tf32:
  // 2^-11, bf16: 2^-8, FP8: e4m3's 2^-4); tf32 has fp16's 10-bit mantissa.
  double unit_roundoff() const;

  bool operator==(const PrecisionPolicy& other) const { return precision_ == other.precision_; }

 private:
  Precision precision_;
};

}  // namespace ampbench
