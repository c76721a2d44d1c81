// After a DDP case, every rank must have taken the same decisions: the same
// steps skipped (found_inf agrees: an inf on one rank's shard reaches every
// rank through the all-reduce), the same loss scale after every step, and the
// same final parameters. Each rank contributes its trajectory and a parameter
// checksum to one all-gather; all ranks compare every rank with rank 0.
#pragma once

#include <string>

#include "runner/case_record.h"

namespace ampbench::distributed {

// Throws std::runtime_error naming the first disagreeing rank, step and
// quantity. A world of one agrees with itself trivially (returns at once).
void check_rank_agreement(const CaseRecord& record);

}  // namespace ampbench::distributed
