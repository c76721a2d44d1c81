#include "distributed/data_parallel.h"

#include <ATen/ops/cat.h>
#include <c10/core/DeviceGuard.h>
#include <torch/cuda.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "amp/autocast_guard.h"

namespace ampbench::distributed {
namespace {

std::string dtype_name(at::ScalarType t) { return c10::toString(t); }

// parallel_apply with the caller's autocast (and grad-mode) state in every
// worker thread, and each worker on its replica's device.
std::vector<at::Tensor> parallel_apply(const std::vector<Model::Forward>& replicas,
                                       const std::vector<at::Tensor>& inputs, const DataParallelOptions& options) {
  const amp::AutocastState state = amp::AutocastState::capture();
  // Without propagation, workers get only grad mode (so backward still
  // works) and default autocast: the bug this path guards against.
  const bool grad_mode = at::GradMode::is_enabled();
  std::vector<at::Tensor> outputs(replicas.size());
  std::vector<std::exception_ptr> errors(replicas.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < replicas.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        std::optional<amp::AutocastStateGuard> autocast;
        if (options.propagate_autocast) autocast.emplace(state);
        at::AutoGradMode grad(grad_mode);
        c10::OptionalDeviceGuard device_guard;
        if (options.devices[i].is_cuda()) device_guard.reset_device(options.devices[i]);
        outputs[i] = replicas[i](inputs[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return outputs;
}

}  // namespace

at::Tensor data_parallel_forward(const Model& model, const at::Tensor& inputs, const DataParallelOptions& options) {
  if (options.devices.empty()) throw std::invalid_argument("DataParallel: no devices");
  // The suite reader refuses dataparallel on such a family; this is the
  // guard for a caller that did not go through it.
  if (!model.replicate)
    throw std::invalid_argument("DataParallel: model family '" + model.family->name + "' cannot be replicated");
  const auto& devices = options.devices;
  // Scatter: chunks along the batch, each moved to its replica's device
  // (differentiable: backward brings the input gradients back).
  std::vector<at::Tensor> chunks = inputs.chunk(static_cast<int64_t>(devices.size()), 0);
  if (chunks.size() != devices.size())
    throw std::runtime_error("DataParallel: a batch of " + std::to_string(inputs.size(0)) +
                             " cannot be scattered over " + std::to_string(devices.size()) + " replicas");
  for (size_t i = 0; i < chunks.size(); ++i) chunks[i] = chunks[i].to(devices[i], /*non_blocking=*/true);
  // Replicate: deep copies whose parameters' gradients flow back to the
  // original parameters through ReduceAdd.
  const std::vector<Model::Forward> replicas = model.replicate(devices);
  std::vector<at::Tensor> outputs = parallel_apply(replicas, chunks, options);
  if (options.expect_output_dtype) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].scalar_type() != *options.expect_output_dtype)
        throw std::runtime_error("DataParallel: replica " + std::to_string(i) + " (thread on " + devices[i].str() +
                                 ") produced " + dtype_name(outputs[i].scalar_type()) + " output, expected " +
                                 dtype_name(*options.expect_output_dtype) +
                                 ": the autocast region did not reach the worker thread");
    }
  }
  // Gather on the input's device.
  for (at::Tensor& o : outputs) o = o.to(inputs.device());
  return at::cat(outputs, 0);
}

std::vector<c10::Device> replica_devices(const c10::Device& device, int replicas) {
  std::vector<c10::Device> out;
  if (device.is_cuda()) {
    const auto count = static_cast<int>(torch::cuda::device_count());
    for (int i = 0; i < replicas; ++i) out.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(i % std::max(1, count)));
  } else {
    for (int i = 0; i < replicas; ++i) out.emplace_back(device);
  }
  return out;
}

}  // namespace ampbench::distributed
