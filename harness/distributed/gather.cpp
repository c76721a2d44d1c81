#include "distributed/gather.h"

#include <ATen/ops/empty_like.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/full.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/context.h"

namespace ampbench::distributed {

std::vector<std::vector<double>> all_gather(Context& context, const std::vector<double>& mine) {
  std::vector<double> copy = mine;
  const at::Tensor local = at::from_blob(copy.data(), {static_cast<int64_t>(copy.size())}, at::kDouble).clone();
  std::vector<at::Tensor> in = {local};
  std::vector<std::vector<at::Tensor>> out(1);
  for (int r = 0; r < context.world_size; ++r) out[0].push_back(at::empty_like(local));
  context.group->allgather(out, in)->wait();
  std::vector<std::vector<double>> all;
  for (const at::Tensor& t : out[0]) {
    const at::Tensor c = t.contiguous();
    all.emplace_back(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
  }
  return all;
}

double broadcast_from_rank0(Context& context, double value) {
  std::vector<at::Tensor> one = {at::full({1}, value, at::kDouble)};
  context.group->broadcast(one)->wait();
  return one[0].item<double>();
}

}  // namespace ampbench::distributed
