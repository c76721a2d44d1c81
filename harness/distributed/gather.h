// The collectives the runner needs beyond DDP's own all-reduce, over doubles:
// each rank's values to every rank, and rank 0's value to every rank. Every
// rank of `context` must call them, in the same order.
#pragma once

#include <vector>

namespace ampbench::distributed {

struct Context;

// result[r] is rank r's `mine`; every rank must pass the same length.
std::vector<std::vector<double>> all_gather(Context& context, const std::vector<double>& mine);

// Rank 0's `value` on every rank (the others' values are ignored).
double broadcast_from_rank0(Context& context, double value);

}  // namespace ampbench::distributed
