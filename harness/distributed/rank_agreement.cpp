#include "distributed/rank_agreement.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "distributed/context.h"

namespace ampbench::distributed {
namespace {

// [scale per step..., skipped per step (0/1)..., sum of final params,
//  sum of |final params|]: enough to tell any disagreement apart.
std::vector<double> fingerprint(const CaseRecord& r) {
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

std::string describe(size_t index, size_t steps) {
  if (index < steps) return "loss scale after step " + std::to_string(index);
  if (index < 2 * steps) return "skipped flag of step " + std::to_string(index - steps);
  return "final parameters (checksum)";
}

}  // namespace

void check_rank_agreement(const CaseRecord& record) {
  Context& ctx = current();
  if (ctx.world_size <= 1) return;
  std::vector<double> mine = fingerprint(record);
  at::Tensor local = at::from_blob(mine.data(), {static_cast<int64_t>(mine.size())}, at::kDouble).clone();
  std::vector<at::Tensor> in = {local};
  std::vector<std::vector<at::Tensor>> out(1);
  for (int r = 0; r < ctx.world_size; ++r) out[0].push_back(at::empty_like(local));
  ctx.group->allgather(out, in)->wait();
  const at::Tensor reference = out[0][0];
  const size_t steps = record.scale.size();
  for (int r = 1; r < ctx.world_size; ++r) {
    const at::Tensor other = out[0][static_cast<size_t>(r)];
    for (int64_t i = 0; i < reference.numel(); ++i) {
      const double a = reference[i].item<double>(), b = other[i].item<double>();
      if (a == b) continue;
      std::ostringstream msg;
      msg << "ranks disagree: rank " << r << " vs rank 0 on the " << describe(static_cast<size_t>(i), steps) << " ("
          << b << " vs " << a << ")";
      throw std::runtime_error(msg.str());
    }
  }
}

}  // namespace ampbench::distributed
