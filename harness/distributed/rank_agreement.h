// After a DDP case, every rank must have taken the same decisions: the same
// steps skipped (found_inf agrees: an inf on one rank's shard reaches every
// rank through the all-reduce), the same loss scale after every step, and the
// same final parameters. Each rank contributes its trajectory and a parameter
// checksum to one all-gather; all ranks compare every rank with rank 0.
// Ranks that disagree are a failed case (the recipe let the replicas drift),
// not an error of the harness: the checker fails it with this message.
#pragma once

#include <optional>
#include <string>
#include <vector>


namespace ampbench::distributed {

struct Context;

// What every rank must agree on after a case.
struct RankTrajectory {
  std::vector<double> scale;  // loss scale after each step
  std::vector<bool> skipped;  // whether any optimizer skipped each step
  std::vector<float> final_params;
};

// [scale per step..., skipped per step (0/1)..., sum of final params,
//  sum of |final params|]: enough to tell any disagreement apart.
std::vector<double> rank_fingerprint(const RankTrajectory& trajectory);

// fingerprints[r] is rank r's. The first rank, in rank order, whose
// fingerprint differs from rank 0's, with the quantity and step, e.g.
// "ranks disagree: rank 2 vs rank 0 on the loss scale after step 4 (...)";
// nullopt when all agree. Pure: the unit of the collective check below.
std::optional<std::string> first_rank_disagreement(const std::vector<std::vector<double>>& fingerprints,
                                                   size_t steps);

// The collective check over `context`'s process group (every rank calls it);
// nullopt at once in a world of one.
std::optional<std::string> find_rank_disagreement(const RankTrajectory& trajectory, Context& context);

}  // namespace ampbench::distributed
