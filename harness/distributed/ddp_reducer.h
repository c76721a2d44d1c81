// DistributedDataParallel in C++ for one model replica per process: the
// parameters (and buffers) are broadcast from rank 0 when it is built, and
// gradients are averaged over the ranks by c10d's Reducer: bucketed
// (compute_bucket_assignment_by_size, 1 MiB first bucket, 25 MiB after, in
// reverse parameter order like torch.nn.parallel.DistributedDataParallel),
// each bucket all-reduced as soon as its gradients are ready during backward.
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "distributed/context.h"

namespace c10d {
class Reducer;
}

namespace torch::nn {
class Module;
}

namespace ampbench::distributed {

// When the last backward pass started and when each bucket's all-reduce was
// launched (DDP's all-reduce-and-average, as a timestamped comm hook): the
// evidence that communication of early buckets overlaps the computation of
// later gradients.
struct BackwardTimeline {
  size_t buckets = 0;
  std::vector<double> launch_ms;  // each launch, ms after prepare_for_backward
  double returned_ms = 0;          // when last_backward() was asked, ms after it
};

class DdpReplica {
 public:
  DdpReplica(const std::shared_ptr<torch::nn::Module>& module, Context& context);
  ~DdpReplica();
  DdpReplica(const DdpReplica&) = delete;
  DdpReplica& operator=(const DdpReplica&) = delete;

  // Before the forward pass (lets the Reducer rebuild its buckets in the
  // order gradients arrived in the first iteration, as DDP's forward does).
  void prepare_for_forward();
  // After the forward pass, before backward: arms the autograd hooks that
  // all-reduce the buckets. `outputs` are the tensors backward starts from.
  void prepare_for_backward(const std::vector<at::Tensor>& outputs);

  int rank() const { return context_.rank; }
  int world_size() const { return context_.world_size; }
  size_t bucket_count() const { return bucket_count_; }

  // Call right after backward() returns.
  BackwardTimeline last_backward() const;

  struct Launches;  // shared with the comm hook

 private:
  Context& context_;
  std::unique_ptr<c10d::Reducer> reducer_;
  size_t bucket_count_ = 0;
  std::shared_ptr<Launches> launches_;
};

// Broadcasts every parameter and buffer of `module` from rank 0 (in place).
void broadcast_from_rank0(torch::nn::Module& module, Context& context);

}  // namespace ampbench::distributed
