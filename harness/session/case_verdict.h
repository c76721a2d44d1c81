// One case's verdict against its fp32 baseline: the comparison (with the
// fp32 reference re-run to skip where the case's scaler skipped), then, for
// a borderline failure, the decision rule of check/confirmation.h, which
// runs the case and its baseline again from fresh seeds.
#pragma once

#include <functional>

#include "check/checker.h"
#include "check/confirmation.h"
#include "runner/runner.h"

namespace ampbench {

// The checker's verdict of `record` against `baseline`. A fp16 scaler
// legitimately skips steps, optimizer by optimizer: comparing with an fp32
// run that took them would read as a lag, so the fp32 reference is re-run
// skipping the same steps and only rounding is left to compare.
Verdict check_against_baseline(const CaseRecord& record, const CaseRecord& baseline, const Runner& runner);

// When `verdict` is borderline under `rule`, runs the case and its baseline
// (with the case's precision's replicas, without throughput) from fresh
// seeds until one passes or the rule's seeds are spent, recording each in
// the verdict. Returns the number of fresh-seed runs made.
// `run_case` runs the case itself at a fresh seed (the compiled
// implementation's way; empty: `runner`).
using CaseRun = std::function<CaseRecord(const CaseSpec&)>;
int confirm_borderline(Verdict& verdict, const CaseSpec& spec, const CaseSpec& baseline, const Runner& runner,
                       const ConfirmationRule& rule, const CaseRun& run_case = {});

}  // namespace ampbench
