// GradScaler: dynamic loss scaling for float16 training, with the semantics
// of Python's torch.amp.GradScaler (LibTorch's C++ API has none), checked
// against it by reference/python and the conformance tests beside this file.
//
// Typical iteration:
//   scaler.scale(loss).backward();
//   scaler.unscale_(opt);            // optional: before clipping/inspecting
//   bool stepped = scaler.step(opt); // false: inf/NaN found, step skipped
//   scaler.update();                 // once per iteration, after every step
//
// Device-generic: the scale lives on the device of the first tensor passed
// to scale(); gradients may live on any devices. Not thread-safe: one scaler
// belongs to one training loop.
#pragma once

#include <ATen/ATen.h>
#include <nlohmann/json_fwd.hpp>
#include <torch/arg.h>
#include <torch/optim/optimizer.h>

#include "amp/amp_scaling_optimizer.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ampbench::amp {

struct GradScalerOptions {
  TORCH_ARG(double, init_scale) = 65536.0;
  TORCH_ARG(double, growth_factor) = 2.0;
  TORCH_ARG(double, backoff_factor) = 0.5;
  TORCH_ARG(int64_t, growth_interval) = 2000;
  TORCH_ARG(bool, enabled) = true;
};

// What state_dict() saves: everything a resumed run needs to continue
// exactly as an uninterrupted one.
struct GradScalerState {
  double scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  int64_t growth_tracker = 0;  // unskipped steps since the last growth/backoff

  bool operator==(const GradScalerState& other) const;
  bool operator!=(const GradScalerState& other) const { return !(*this == other); }
};

// JSON keys follow Python's state_dict: scale, growth_factor, backoff_factor,
// growth_interval, _growth_tracker.
void to_json(nlohmann::json& j, const GradScalerState& state);
void from_json(const nlohmann::json& j, GradScalerState& state);

// Whether ATen's unscale kernel (_amp_foreach_non_finite_check_and_unscale_)
// takes `dtype` gradients on `device_type`: float32/float64/float16
// everywhere, bfloat16 on CPU only (CUDA has no bfloat16 kernel). unscale_()
// refuses the others with c10::NotImplementedError, as torch.amp.GradScaler
// fails on them (NotImplementedError from the kernel).
bool unscale_kernel_supports(at::DeviceType device_type, at::ScalarType dtype);

class GradScaler {
 public:
  explicit GradScaler(GradScalerOptions options = {});
  // Not copyable: a copy would share the scale tensor with the original.
  GradScaler(const GradScaler&) = delete;
  GradScaler& operator=(const GradScaler&) = delete;
  GradScaler(GradScaler&&) = default;
  GradScaler& operator=(GradScaler&&) = default;

  // outputs * scale; returns the input itself when disabled.
  at::Tensor scale(const at::Tensor& outputs);
  std::vector<at::Tensor> scale(std::vector<at::Tensor> outputs);

  // Divides the optimizer's gradients by the scale in place and records
  // whether any is inf/NaN. At most once per optimizer per iteration, before
  // step(). Refuses float16 gradients, and gradients ATen's kernel cannot take
  // (bfloat16 on CUDA: see unscale_kernel_supports) before touching any.
  void unscale_(torch::optim::Optimizer& optimizer);

  // Unscales (if unscale_ was not called) and runs optimizer.step() unless a
  // gradient was inf/NaN. Returns whether the optimizer stepped. This is the
  // scaler's only host synchronization.
  //
  // An optimizer that takes the scale on the device (AmpScalingOptimizer:
  // the fused ones) gets Python's `_step_supports_amp_scaling` path instead:
  // the inf check alone (no unscale) unless unscale_ ran, then the kernel
  // unscales and skips by itself; the return value then costs one sync
  // after the step.
  bool step(torch::optim::Optimizer& optimizer);

  // step() without reading the outcome on the host, for timed loops: no
  // synchronization with an AmpScalingOptimizer (the kernel skips on the
  // device); other optimizers need the flag on the host to skip, as in
  // Python, so it is step().
  void step_without_sync(torch::optim::Optimizer& optimizer);

  // Once per iteration: backs off if any optimizer saw inf/NaN since the last
  // update, otherwise counts towards growth; resets per-optimizer state.
  void update();
  // Sets the scale directly (no growth/backoff) and resets per-optimizer state.
  void update(double new_scale);

  double get_scale() const;  // 1.0 when disabled; synchronizes with the device
  bool is_enabled() const { return options_.enabled(); }

  double get_growth_factor() const { return options_.growth_factor(); }
  void set_growth_factor(double growth_factor);
  double get_backoff_factor() const { return options_.backoff_factor(); }
  void set_backoff_factor(double backoff_factor);
  int64_t get_growth_interval() const { return options_.growth_interval(); }
  void set_growth_interval(int64_t growth_interval);

  // Throws when disabled: a disabled scaler has no state (Python returns {}).
  GradScalerState state_dict() const;
  // A no-op when disabled, as in Python.
  void load_state_dict(const GradScalerState& state);

 private:
  enum class Stage { kReady, kUnscaled, kStepped };
  struct OptimizerState {
    Stage stage = Stage::kReady;
    std::vector<at::Tensor> found_inf_per_device;  // float32, one per grad device
  };

  void check_scale_created(const char* caller) const;
  void lazy_init_scale(const at::Device& device);
  std::vector<at::Tensor> unscale_grads(torch::optim::Optimizer& optimizer,
                                        const at::Tensor& inv_scale) const;
  // The fused path of step(): returns found_inf, summed on the scale's device.
  at::Tensor step_on_device(torch::optim::Optimizer& optimizer, AmpScalingOptimizer& fused);

  GradScalerOptions options_;
  int64_t init_growth_tracker_ = 0;
  at::Tensor scale_;           // float32 0-dim, created by the first scale()
  at::Tensor growth_tracker_;  // int32 0-dim, beside scale_
  // Keyed by address, like Python's id(optimizer); cleared by update().
  std::unordered_map<const torch::optim::Optimizer*, OptimizerState> optimizer_states_;
};

}  // namespace ampbench::amp
