// DataParallel (one process, several replicas): the batch scattered over
// devices, the module replicated with torch::nn::parallel::replicate (whose
// ReduceAdd gradient edges sum the replicas' gradients onto the original
// parameters), one forward thread per replica, outputs gathered.
//
// LibTorch's own torch::nn::parallel::parallel_apply runs the replicas
// through at::parallel_for, which neither propagates thread-local state
// (autocast is thread-local: the workers would run in float32) nor sets the
// current CUDA device; and its data_parallel short-circuits to a plain
// forward for one device. So the apply step here is our own: one std::thread
// per replica, each entering the caller's autocast state
// (amp::AutocastStateGuard) and its device, and each replica's output dtype
// is checked against the autocast dtype.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <optional>
#include <vector>

#include "models/model.h"

namespace ampbench::distributed {

struct DataParallelOptions {
  // Devices of the replicas, one entry per replica (entries may repeat: two
  // replicas on one device still run in two threads).
  std::vector<c10::Device> devices;
  // The dtype every replica's output must have (the autocast dtype, or
  // float32); a replica that differs is an error naming it.
  std::optional<at::ScalarType> expect_output_dtype;
  // Test hook: false runs the workers without the caller's autocast state,
  // reproducing the bug the check exists for.
  bool propagate_autocast = true;
};

// The replicas' devices for `replicas` replicas on `device`'s type: CPU
// repeats the CPU; CUDA goes round-robin over the visible GPUs.
std::vector<c10::Device> replica_devices(const c10::Device& device, int replicas);

// out = DataParallel(model)(inputs), gathered on inputs' device.
// Throws std::runtime_error when a replica's output dtype is wrong.
at::Tensor data_parallel_forward(const Model& model, const at::Tensor& inputs, const DataParallelOptions& options);

}  // namespace ampbench::distributed
