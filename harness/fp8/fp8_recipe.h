// An FP8 training recipe: how the three GEMM operands of a Linear layer
// (input, weight, output gradient) are scaled and cast to 8-bit floats.
//
//   tensorwise  torchao's default: one scale per tensor from its current
//               amax; input and weight e4m3, output gradient e5m2.
//   rowwise     torchao's rowwise recipe: one scale per row of each GEMM
//               operand (along the reduced dimension), every operand e4m3,
//               scales rounded down to a power of two.
//   delayed     Transformer Engine's DelayedScaling: one scale per tensor
//               from an amax history of earlier steps (history_len, margin,
//               max or most_recent); forward e4m3, backward e5m2 (HYBRID).
//   mxfp8       the OCP MX recipe as torchao's emulated MXFP8 training path:
//               e4m3 values in blocks of 32 along each GEMM's reduced
//               dimension, one power-of-two E8M0 scale per block (floor,
//               the OCP rule, or rceil, cuBLAS's); fp8/mx_linear.h.
//   nvfp4       NVIDIA's NVFP4 training recipe (Transformer Engine's
//               NVFP4BlockScaling) on torchao's NVFP4 cast: E2M1 values in
//               blocks of 16, an E4M3 scale per block under an fp32 tensor
//               scale; gradients rounded stochastically, the weight
//               gradient's operands through a random Hadamard transform;
//               fp8/nvfp4_linear.h.
//   blockwise   DeepSeek-V3's recipe (Transformer Engine's
//               Float8BlockScaling) as torchao's blockwise FP8 training:
//               e4m3 everywhere, a float32 scale 448 / amax per 1 x 128
//               tile of activations and gradients (along each GEMM's
//               reduced dimension) and per 128 x 128 tile of weights;
//               fp8/blockwise_linear.h.
//
// The fault fields exist for the negative controls: each is a real FP8
// mistake that the conformance check must catch; a correct recipe leaves
// them at their defaults (RecipeOptions::faulted() says whether it did).
#pragma once

#include <c10/core/ScalarType.h>
#include <torch/arg.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ampbench::fp8 {

enum class Scaling { kTensorwise, kRowwise, kDelayed, kMxfp8, kNvfp4, kBlockwise };
enum class AmaxCompute { kMax, kMostRecent };
// How an MX block's E8M0 scale is rounded (fp8/mx_cast.h).
enum class MxScaleMode { kFloor, kCeil, kRceil };

std::optional<Scaling> parse_scaling(const std::string& name);
std::string scaling_name(Scaling scaling);
std::optional<AmaxCompute> parse_amax_compute(const std::string& name);
std::string amax_compute_name(AmaxCompute algo);
std::optional<MxScaleMode> parse_mx_scale_mode(const std::string& name);
std::string mx_scale_mode_name(MxScaleMode mode);

inline constexpr int64_t kMxBlock = 32;
inline constexpr int64_t kNvfp4Block = 16;
inline constexpr int64_t kBlockwiseTileEdge = 128;

inline constexpr int64_t kMaxHistoryLen = 4096;

struct RecipeOptions {
  explicit RecipeOptions(Scaling scaling) : scaling_(scaling) {}
  TORCH_ARG(Scaling, scaling);
  // Delayed scaling only (Transformer Engine's DelayedScaling arguments).
  TORCH_ARG(int64_t, history_len) = 16;
  TORCH_ARG(int64_t, margin) = 0;
  TORCH_ARG(AmaxCompute, amax_compute) = AmaxCompute::kMax;
  // Faults, for negative controls. The cast clamps to the format's largest
  // finite value (torchao and Transformer Engine both saturate) unless off.
  TORCH_ARG(bool, saturate) = true;
  // e4m3 for output gradients where the recipe wants e5m2's range.
  TORCH_ARG(bool, e4m3_gradients) = false;
  // Per-tensor scales from step 0's amax, never updated (tensorwise, delayed).
  TORCH_ARG(bool, freeze_scales) = false;
  // The input scaled by the weight's amax (tensorwise, delayed).
  TORCH_ARG(bool, input_amax_from_weight) = false;
  // The amax history rolled after each update (delayed); off, history[0]
  // is overwritten and the older entries are never seen.
  TORCH_ARG(bool, roll_history) = true;
  // Rowwise only: each row's scale rounded down to a power of two, as
  // torchao's rowwise recipe does; off, 448 / amax is used as it comes.
  TORCH_ARG(bool, pow2_scales) = true;
  // MXFP8 only. The scale rule: floor (the OCP MX spec's, torchao's
  // default) or rceil (cuBLAS's); ceil is the mistake of rounding it up.
  TORCH_ARG(MxScaleMode, mx_scale_mode) = MxScaleMode::kFloor;
  // Values per scale: 32 in the MX spec; 16 (NVFP4's) is a mistake.
  TORCH_ARG(int64_t, mx_block) = kMxBlock;
  // E8M0 exponents clamped to the format's range before their conversion to
  // 8 bits; off, a block below 2^-119 (an all-zero one) wraps around.
  TORCH_ARG(bool, mx_clamp_exponent) = true;
  // NVFP4 only. Values per E4M3 scale: 16; 32 is a mistake.
  TORCH_ARG(int64_t, nvfp4_block) = kNvfp4Block;
  // The fp32 tensor scale above the block scales; off, single-level
  // scaling: a block scale below E4M3's smallest normal is clamped up to it
  // and small gradients flush to zero.
  TORCH_ARG(bool, nvfp4_tensor_scale) = true;
  // The random Hadamard transform on the weight gradient's operands.
  TORCH_ARG(bool, nvfp4_hadamard) = true;
  // Stochastic rounding's stream carried on from step to step; off, it is
  // reseeded at every backward, so every step draws the same bits.
  TORCH_ARG(bool, nvfp4_fresh_stream) = true;
  // Seeds the Hadamard signs (seed) and the rounding stream (seed + 1).
  TORCH_ARG(int64_t, nvfp4_seed) = 0;
  // Blockwise only. The tile edge: 128; 64 is the mistake of another
  // recipe's tiles (finer tiles fit better, so only the scale audit sees it).
  TORCH_ARG(int64_t, blockwise_tile) = kBlockwiseTileEdge;
  // Each tile scaled from its own amax; off, from the whole tensor's (one
  // per-tensor scale repeated per tile).
  TORCH_ARG(bool, blockwise_own_amax) = true;

 public:  // TORCH_ARG leaves its fields private
  // TORCH_CHECKs every field, naming the bad value.
  void validate() const;
  bool faulted() const;

 private:
  void validate_nvfp4() const;
  void validate_blockwise() const;
};

// The largest finite value of an 8-bit float format (448 for e4m3fn, 57344
// for e5m2).
double fp8_max(at::ScalarType fp8);

// The rounding boundary above fp8_max: a value at or past it is beyond the
// format even by rounding (NaN in e4m3fn, inf in e5m2 without the clamp);
// 464 for e4m3fn, 61440 for e5m2.
double fp8_overflow_boundary(at::ScalarType fp8);

}  // namespace ampbench::fp8
