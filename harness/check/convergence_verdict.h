// A converge case's Verdict: the convergence rule (check/convergence_check.h)
// against its fp32 reference, its criteria as the verdict's checks.
#pragma once

#include "check/checker.h"

namespace ampbench {

// `record` and `baseline` must both hold a ConvergenceRecord.
Verdict convergence_verdict(const CaseRecord& record, const CaseRecord& baseline);

}  // namespace ampbench
