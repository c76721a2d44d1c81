// Synthetic, deterministic data: Gaussian inputs labelled by a fixed random
// "teacher" network, so the loss really falls and convergence means
// something. Batches are generated on the CPU from the seed (identical on
// every device and precision) and sharded by rank.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

struct Batch {
  at::Tensor inputs;
  at::Tensor labels;
};

struct DataOptions {
  const ModelFamily* model = nullptr;
  ModelSizes sizes;
  std::uint64_t seed = 1;
  int distinct_batches = 8;  // micro-batches before the data repeats
  int rank = 0;
  int world_size = 1;
  LossKind loss = LossKind::kCrossEntropy;  // what the labels are (spec/loss.h)
};

class SyntheticData {
 public:
  SyntheticData(const DataOptions& options, const c10::Device& device);

  // Micro-batch `index` (cyclic), copied to the device. On CUDA the host
  // copy is pinned and the transfer non_blocking, as a real input pipeline.
  Batch host_to_device(int index) const;

  // One batch resident on the device: the compute-bound configuration.
  const Batch& cached() const { return cached_; }

  // The host-side batch (for dumps and tests).
  const Batch& host(int index) const { return host_[index % host_.size()]; }

  int distinct_batches() const { return static_cast<int>(host_.size()); }

 private:
  c10::Device device_;
  std::vector<Batch> host_;
  Batch cached_;
};

}  // namespace ampbench
