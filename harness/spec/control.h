// A case's variant: the correct recipe, or one negative control (a known AMP
// mistake the checker must catch; docs/semantics.md#negative-controls).
// Resolved from its suite name when the suite is read; which workload offers
// which control is the workload's (spec/workload_traits.h).
#pragma once

#include <optional>
#include <string>
#include <vector>
#include <string_view>

namespace ampbench {

enum class Control {
  kNone,                      // "correct"
  kNoScaler,                  // fp16 without a GradScaler
  kFreshScalerEachStep,       // a new GradScaler every step
  kResumeWithoutScalerState,  // a checkpoint that drops the scaler's state
  kClipBeforeUnscale,         // clipping the still-scaled gradients
  kStepEveryMicrobatch,       // accumulation that steps on every micro-batch
  kPenaltyFromScaledGrads,    // a gradient penalty built from still-scaled gradients
  kUpdatePerOptimizer,        // scaler.update() after each optimizer's step
  kRankDisagreement,          // one DDP rank alone skips a step
  // The FP8 mistakes (spec/fp8_settings.h), each a fault of the recipe.
  kFp8FrozenScales,        // the scales of step 0 used for ever
  kFp8InputAmaxFromWeight, // the input scaled by the weight's amax
  kFp8E4m3Gradients,       // output gradients in e4m3 instead of e5m2
  kFp8HistoryNotRolled,    // delayed scaling's amax history never rolled
  kFp8NoSaturation,        // the cast to 8 bits without its clamp
  kFp8RowwiseUnroundedScales,  // rowwise scales not rounded down to a power of two
  kResumeWithoutFp8State,      // a resumed delayed recipe starts its amax history again
  // The MXFP8 mistakes.
  kMxfp8CeilScales,   // block scales rounded up (ceil) instead of down (floor)
  kMxfp8Block16,      // 16 values per scale instead of 32
  kMxfp8E8m0Wrap,     // E8M0 exponents not clamped: a tiny block's wraps around
  // The long-horizon mistakes of the converge workload (docs/convergence.md):
  // harmless over a dozen steps, they show over thousands.
  kFp16WeightsNoMaster,  // O2 without its float32 master weights: updates round away in float16
  kBf16WeightsNoMaster,  // bfloat16 weights updated in place: updates round away in bfloat16
  kScalerGrowthOff,      // a GradScaler that never grows from a small initial scale
  kScaleNeverRecovers,   // after one injected overflow the scale backs off and never grows back
  // The NVFP4 mistakes.
  kNvfp4SameStream,     // stochastic rounding reseeded every step: the same draws
  kNvfp4NoHadamard,     // the weight gradient's operands not transformed
  kNvfp4Block32,        // 32 values per E4M3 scale instead of 16
  kNvfp4NoTensorScale,  // single-level scaling: no fp32 tensor scale
  // The blockwise mistakes.
  kFp8BlockwiseTile64,  // 64-wide tiles instead of 128
  kFp8BlockwiseTensorAmax,  // every tile scaled from the whole tensor's amax
};

// The suite's name of a variant ("correct" for kNone).
std::string to_string(Control control);
// nullopt for a name that is no variant.
std::optional<Control> parse_control(std::string_view name);
// Every negative control (kNone excluded), in declaration order.
std::vector<Control> all_controls();

}  // namespace ampbench
