// A case's variant: the correct recipe, or one negative control (a known AMP
// mistake the checker must catch; docs/semantics.md#negative-controls).
// Resolved from its suite name when the suite is read; which workload offers
// which control is the workload's (spec/workload_traits.h).
#pragma once

#include <optional>
#include <string>
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
};

// The suite's name of a variant ("correct" for kNone).
std::string to_string(Control control);
// nullopt for a name that is no variant.
std::optional<Control> parse_control(std::string_view name);

}  // namespace ampbench
