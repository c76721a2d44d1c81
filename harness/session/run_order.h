// The order a suite's cases run in. A suite lists its cases the way a reader
// wants them (small models first, the real architectures after), but the
// progress line's ETA can only price a kind of case once one of its kind has
// run: in smoke's own order ResNet's cases, the costliest, come last, and
// half-way the ETA said a third of the time left. So the cases run in three
// passes, each in the suite's order:
//   1. every fp32 baseline (each model's cost is known early, and a broken
//      baseline shows before the cases judged against it);
//   2. the first case of each model and precision not yet run;
//   3. the rest.
// Every case still runs after its baseline, and every rank of a distributed
// run computes the same order from the same list.
#pragma once

#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

std::vector<CaseSpec> run_order(const std::vector<CaseSpec>& cases);

}  // namespace ampbench
