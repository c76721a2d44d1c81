// The rounding noise of a baseline's envelope replicas (check/envelope.h).
//
// A replica is a fp32 run of the baseline perturbed by one precision's
// rounding: its unit roundoff, the noise model and a seed. Precisions with
// the same unit roundoff and noise model (fp16, O2 and O3; the FP8 recipes)
// perturb the same fp32 training the same way, so their replicas would be
// the same distribution drawn again: they share one set, seeded by the first
// of them in PrecisionPolicy::names() order, whichever of them a run (or a
// filter) compares. fp16's and bf16's seeds are the ones they always had.
#pragma once

#include <cstdint>

#include "core/precision.h"
#include "spec/case_spec.h"

namespace ampbench {

// The perturbation of replica `index` (0-based) of `baseline` measured for
// the cases of precision `compared`.
Perturbation replica_perturbation(const CaseSpec& baseline, Precision compared, int index);

// Whether the replicas measured for `a` serve `b` too (the same perturbations).
bool share_replicas(const CaseSpec& baseline, Precision a, Precision b);

}  // namespace ampbench
