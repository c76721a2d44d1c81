#include "distributed/rank_agreement.h"

#include <cmath>
#include <sstream>

#include "distributed/context.h"
#include "distributed/gather.h"

namespace ampbench::distributed {
namespace {

std::string describe(size_t index, size_t steps) {
  if (index < steps) return "loss scale after step " + std::to_string(index);
  if (index < 2 * steps) return "skipped flag of step " + std::to_string(index - steps);
  return "final parameters (checksum)";
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

std::vector<double> rank_fingerprint(const RankTrajectory& r) {
  std::vector<double> v(r.scale.begin(), r.scale.end());
  for (bool s : r.skipped) v.push_back(s ? 1.0 : 0.0);
  double sum = 0, abs_sum = 0;
  for (float p : r.final_params) {
    sum += p;
    abs_sum += std::abs(p);
  }
  v.push_back(sum);
  v.push_back(abs_sum);
  return v;
}

std::optional<std::string> first_rank_disagreement(const std::vector<std::vector<double>>& fingerprints,
                                                   size_t steps) {
  if (fingerprints.empty()) return std::nullopt;
  const std::vector<double>& reference = fingerprints.front();
  for (size_t r = 1; r < fingerprints.size(); ++r) {
    const std::vector<double>& other = fingerprints[r];
    if (other.size() != reference.size())
      return "ranks disagree: rank " + std::to_string(r) + " recorded " + std::to_string(other.size()) +
             " values, rank 0 " + std::to_string(reference.size());
    for (size_t i = 0; i < reference.size(); ++i) {
      if (same(reference[i], other[i])) continue;
      std::ostringstream msg;
      msg << "ranks disagree: rank " << r << " vs rank 0 on the " << describe(i, steps) << " (" << other[i]
          << " vs " << reference[i] << ")";
      return msg.str();
    }
  }
  return std::nullopt;
}

std::optional<std::string> find_rank_disagreement(const RankTrajectory& trajectory, Context& context) {
  if (context.world_size <= 1) return std::nullopt;
  return first_rank_disagreement(all_gather(context, rank_fingerprint(trajectory)), trajectory.scale.size());
}

}  // namespace ampbench::distributed
