// "If the loss goes NaN, find the op, or go back to FP32": when a case ends
// with non-finite values its GradScaler did not absorb, the runner re-runs it
// from its seed with checks after every forward (the loss), backward (each
// module's gradients) and optimizer step (each module's parameters), and
// names the first place a non-finite value appeared. Steps the scaler
// skipped are its business, not a failure, and are passed over.
#pragma once

#include <optional>
#include <vector>

#include <c10/core/Device.h>

#include "runner/case_record.h"

namespace ampbench {
namespace distributed {
struct Context;
}  // namespace distributed

// Whether `record` holds non-finite values its scaler did not absorb.
bool has_unabsorbed_nonfinite(const CaseRecord& record);

// The module ("model<i>.<submodule>") whose gradient went non-finite first
// in backward: the last one in parameter order (backward runs from the
// output), so "model0.head" before "model0.fc1". Empty when all are finite.
std::string first_nonfinite_gradient(const std::vector<std::pair<std::string, at::Tensor>>& named_grads);

// Re-runs `spec` with the checks; nullopt when the re-run stays finite.
std::optional<NonfiniteDiagnosis> diagnose_nonfinite(const CaseSpec& spec, const c10::Device& device,
                                                     distributed::Context* context);

}  // namespace ampbench
