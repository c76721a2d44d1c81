#include "amp/grad_scaler.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

namespace ampbench::amp {
namespace {

void check_scale_value(double scale, const char* what) {
  // The scale is stored in float32: a double beyond its range would be inf.
  TORCH_CHECK_VALUE(scale > 0.0 && std::isfinite(static_cast<float>(scale)),
                    "GradScaler: ", what, " must be positive and finite in float32, got ", scale);
}

void check_growth_factor(double growth_factor) {
  TORCH_CHECK_VALUE(growth_factor > 1.0 && std::isfinite(growth_factor),
                    "GradScaler: the growth factor must be > 1.0, got ", growth_factor);
}

void check_backoff_factor(double backoff_factor) {
  TORCH_CHECK_VALUE(backoff_factor > 0.0 && backoff_factor < 1.0,
                    "GradScaler: the backoff factor must be in (0, 1), got ", backoff_factor);
}

void check_growth_interval(int64_t growth_interval) {
  // ATen's growth tracker is an int32 counter compared against the interval.
  TORCH_CHECK_VALUE(growth_interval > 0 && growth_interval <= std::numeric_limits<int32_t>::max(),
                    "GradScaler: the growth interval must be in [1, 2^31 - 1], got ", growth_interval);
}

void check_growth_tracker(int64_t growth_tracker) {
  TORCH_CHECK_VALUE(growth_tracker >= 0 && growth_tracker <= std::numeric_limits<int32_t>::max(),
                    "GradScaler: the growth tracker must be in [0, 2^31 - 1], got ", growth_tracker);
}

// A device -> host copy must block: a non_blocking one lands in pinned memory
// that a CPU kernel could read before the copy finished.
at::Tensor on_device(const at::Tensor& t, const at::Device& device) {
  if (t.device() == device) return t;
  return t.to(t.options().device(device), /*non_blocking=*/!device.is_cpu());
}

// Gradients to unscale, grouped the way the foreach kernel wants them: one
// device and one dtype per call.
struct GradGroup {
  at::Device device;
  at::ScalarType dtype;
  std::vector<at::Tensor> grads;
};

at::Tensor grad_to_unscale(const at::Tensor& param) {
  const at::Tensor& grad = param.grad();
  if (!grad.defined()) return grad;
  // Python's message: float16 gradients cannot hold unscaled magnitudes and
  // signal fp16 master weights, which mixed precision does not use.
  TORCH_CHECK_VALUE(grad.scalar_type() != at::kHalf, "Attempting to unscale FP16 gradients.");
  // A sparse gradient's inf/NaN live in its values; unscaling them is enough.
  const at::Tensor& values = grad.is_sparse() ? grad._values() : grad;
  // Where ATen has no kernel for the dtype, Python's GradScaler raises (from
  // inside the kernel, after unscaling earlier groups); this refuses before
  // any gradient is touched, and says why.
  TORCH_CHECK_NOT_IMPLEMENTED(unscale_kernel_supports(values.device().type(), values.scalar_type()),
                              "GradScaler: cannot unscale ", values.scalar_type(), " gradients on ",
                              values.device().type(),
                              ": ATen's _amp_foreach_non_finite_check_and_unscale_ has no such kernel there "
                              "(torch.amp.GradScaler fails the same way). bfloat16 needs no loss scaling: "
                              "run bf16 without a scaler, or keep float32 parameters under bf16 autocast.");
  return values;
}

std::vector<GradGroup> group_grads(const torch::optim::Optimizer& optimizer) {
  std::vector<GradGroup> groups;
  for (const auto& param_group : optimizer.param_groups()) {
    for (const auto& param : param_group.params()) {
      at::Tensor grad = grad_to_unscale(param);
      if (!grad.defined()) continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const GradGroup& g) {
        return g.device == grad.device() && g.dtype == grad.scalar_type();
      });
      if (it == groups.end()) {
        groups.push_back(GradGroup{grad.device(), grad.scalar_type(), {}});
        it = std::prev(groups.end());
      }
      it->grads.push_back(std::move(grad));
    }
  }
  return groups;
}

}  // namespace

bool unscale_kernel_supports(at::DeviceType device_type, at::ScalarType dtype) {
  // AmpKernels.cu dispatches AT_DISPATCH_FLOATING_TYPES_AND_HALF; the CPU
  // kernel adds bfloat16 (torch 2.11 through 2.15).
  const bool floating = dtype == at::kFloat || dtype == at::kDouble || dtype == at::kHalf;
  if (device_type == at::kCPU) return floating || dtype == at::kBFloat16;
  return floating;
}

bool GradScalerState::operator==(const GradScalerState& other) const {
  return scale == other.scale && growth_factor == other.growth_factor &&
         backoff_factor == other.backoff_factor && growth_interval == other.growth_interval &&
         growth_tracker == other.growth_tracker;
}

void to_json(nlohmann::json& j, const GradScalerState& state) {
  j = nlohmann::json{{"scale", state.scale},
                     {"growth_factor", state.growth_factor},
                     {"backoff_factor", state.backoff_factor},
                     {"growth_interval", state.growth_interval},
                     {"_growth_tracker", state.growth_tracker}};
}

void from_json(const nlohmann::json& j, GradScalerState& state) {
  // at() so that a missing key names itself in the error.
  state.scale = j.at("scale").get<double>();
  state.growth_factor = j.at("growth_factor").get<double>();
  state.backoff_factor = j.at("backoff_factor").get<double>();
  state.growth_interval = j.at("growth_interval").get<int64_t>();
  state.growth_tracker = j.at("_growth_tracker").get<int64_t>();
}

GradScaler::GradScaler(GradScalerOptions options) : options_(std::move(options)) {
  check_scale_value(options_.init_scale(), "init_scale");
  check_growth_factor(options_.growth_factor());
  check_backoff_factor(options_.backoff_factor());
  check_growth_interval(options_.growth_interval());
}

void GradScaler::check_scale_created(const char* caller) const {
  TORCH_CHECK(scale_.defined(), "Attempted ", caller,
              " but the scale has not been created yet. This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
}

void GradScaler::lazy_init_scale(const at::Device& device) {
  const auto options = at::TensorOptions().device(device);
  scale_ = at::full({}, options_.init_scale(), options.dtype(at::kFloat));
  growth_tracker_ = at::full({}, init_growth_tracker_, options.dtype(at::kInt));
}

at::Tensor GradScaler::scale(const at::Tensor& outputs) {
  if (!is_enabled()) return outputs;
  TORCH_CHECK(outputs.defined(), "GradScaler::scale(): got an undefined tensor");
  if (!scale_.defined()) lazy_init_scale(outputs.device());
  return outputs * on_device(scale_, outputs.device());
}

std::vector<at::Tensor> GradScaler::scale(std::vector<at::Tensor> outputs) {
  if (!is_enabled()) return outputs;
  // One copy of the scale per device, as Python's _MultiDeviceReplicator.
  std::unordered_map<at::Device, at::Tensor> per_device;
  for (size_t i = 0; i < outputs.size(); ++i) {
    TORCH_CHECK(outputs[i].defined(), "GradScaler::scale(): output ", i, " is an undefined tensor");
    const at::Device device = outputs[i].device();
    if (!scale_.defined()) lazy_init_scale(device);
    auto it = per_device.find(device);
    if (it == per_device.end()) it = per_device.emplace(device, on_device(scale_, device)).first;
    outputs[i] = outputs[i] * it->second;
  }
  return outputs;
}

std::vector<at::Tensor> GradScaler::unscale_grads(torch::optim::Optimizer& optimizer,
                                                  const at::Tensor& inv_scale) const {
  // Gradients can require grad (create_graph backward); unscaling is not part
  // of any graph.
  at::NoGradGuard no_grad;
  struct PerDevice {
    at::Tensor found_inf;
    at::Tensor inv_scale;
  };
  std::unordered_map<at::Device, PerDevice> per_device;
  for (GradGroup& group : group_grads(optimizer)) {
    auto it = per_device.find(group.device);
    if (it == per_device.end()) {
      PerDevice slot{at::zeros({}, at::TensorOptions().dtype(at::kFloat).device(group.device)),
                     on_device(inv_scale, group.device)};
      it = per_device.emplace(group.device, std::move(slot)).first;
    }
    at::_amp_foreach_non_finite_check_and_unscale_(group.grads, it->second.found_inf,
                                                   it->second.inv_scale);
  }
  std::vector<at::Tensor> found_infs;
  found_infs.reserve(per_device.size());
  for (auto& [device, slot] : per_device) found_infs.push_back(std::move(slot.found_inf));
  return found_infs;
}

void GradScaler::unscale_(torch::optim::Optimizer& optimizer) {
  if (!is_enabled()) return;
  check_scale_created("unscale_()");
  OptimizerState& state = optimizer_states_[&optimizer];
  TORCH_CHECK(state.stage != Stage::kUnscaled,
              "unscale_() has already been called on this optimizer since the last update().");
  TORCH_CHECK(state.stage != Stage::kStepped, "unscale_() is being called after step().");
  // The reciprocal in double, as Python does, then rounded once to float.
  const at::Tensor inv_scale = scale_.to(at::kDouble).reciprocal().to(at::kFloat);
  state.found_inf_per_device = unscale_grads(optimizer, inv_scale);
  state.stage = Stage::kUnscaled;
}

at::Tensor GradScaler::step_on_device(torch::optim::Optimizer& optimizer, AmpScalingOptimizer& fused) {
  OptimizerState& state = optimizer_states_[&optimizer];
  const bool unscaled = state.stage == Stage::kUnscaled;
  // Python's _check_inf_per_device: the check with an inverse scale of 1
  // leaves the gradients scaled; the kernel divides them by grad_scale.
  if (state.stage == Stage::kReady) state.found_inf_per_device = unscale_grads(optimizer, at::ones_like(scale_));
  TORCH_CHECK(!state.found_inf_per_device.empty(),
              "No inf checks were recorded for this optimizer. (None of its parameters has a "
              "gradient: did backward() reach them?)");
  at::Tensor found_inf = on_device(state.found_inf_per_device.front(), scale_.device());
  for (size_t i = 1; i < state.found_inf_per_device.size(); ++i)
    found_inf = found_inf + on_device(state.found_inf_per_device[i], scale_.device());
  fused.step_with_amp(unscaled ? at::Tensor() : scale_, found_inf);
  state.stage = Stage::kStepped;
  return found_inf;
}

void GradScaler::step_without_sync(torch::optim::Optimizer& optimizer) {
  auto* fused = dynamic_cast<AmpScalingOptimizer*>(&optimizer);
  if (!is_enabled() || fused == nullptr) {
    step(optimizer);
    return;
  }
  check_scale_created("step()");
  TORCH_CHECK(optimizer_states_[&optimizer].stage != Stage::kStepped,
              "step() has already been called since the last update().");
  step_on_device(optimizer, *fused);
}

bool GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!is_enabled()) {
    optimizer.step();
    return true;
  }
  check_scale_created("step()");
  OptimizerState& state = optimizer_states_[&optimizer];
  TORCH_CHECK(state.stage != Stage::kStepped, "step() has already been called since the last update().");
  if (auto* fused = dynamic_cast<AmpScalingOptimizer*>(&optimizer))
    return step_on_device(optimizer, *fused).item<float>() == 0.0f;
  if (state.stage == Stage::kReady) unscale_(optimizer);
  TORCH_CHECK(!state.found_inf_per_device.empty(),
              "No inf checks were recorded for this optimizer. (None of its parameters has a "
              "gradient: did backward() reach them?)");
  // Summed on one device first so that reading the flag is a single sync.
  at::Tensor found_inf = state.found_inf_per_device.front();
  for (size_t i = 1; i < state.found_inf_per_device.size(); ++i) {
    found_inf = found_inf + on_device(state.found_inf_per_device[i], found_inf.device());
  }
  const bool finite = found_inf.item<float>() == 0.0f;
  if (finite) optimizer.step();
  state.stage = Stage::kStepped;
  return finite;
}

void GradScaler::update() {
  if (!is_enabled()) return;
  check_scale_created("update()");
  at::Tensor found_inf;
  for (const auto& [optimizer, state] : optimizer_states_) {
    for (const at::Tensor& f : state.found_inf_per_device) {
      const at::Tensor here = on_device(f, scale_.device());
      found_inf = found_inf.defined() ? found_inf + here : here;
    }
  }
  TORCH_CHECK(found_inf.defined(),
              "No inf checks were recorded prior to update(). (No optimizer was stepped or "
              "unscaled since the last update().)");
  // ATen's kernel backs off on inf, otherwise counts towards growth and grows
  // only when the grown scale stays finite.
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf, options_.growth_factor(),
                         options_.backoff_factor(), options_.growth_interval());
  optimizer_states_.clear();
}

void GradScaler::update(double new_scale) {
  if (!is_enabled()) return;
  check_scale_created("update(new_scale)");
  check_scale_value(new_scale, "new_scale");
  scale_.fill_(new_scale);
  optimizer_states_.clear();
}

double GradScaler::get_scale() const {
  if (!is_enabled()) return 1.0;
  if (!scale_.defined()) return options_.init_scale();
  return scale_.item<float>();
}

void GradScaler::set_growth_factor(double growth_factor) {
  check_growth_factor(growth_factor);
  options_.growth_factor(growth_factor);
}

void GradScaler::set_backoff_factor(double backoff_factor) {
  check_backoff_factor(backoff_factor);
  options_.backoff_factor(backoff_factor);
}

void GradScaler::set_growth_interval(int64_t growth_interval) {
  check_growth_interval(growth_interval);
  options_.growth_interval(growth_interval);
}

GradScalerState GradScaler::state_dict() const {
  TORCH_CHECK(is_enabled(),
              "GradScaler::state_dict(): the scaler is disabled and has no state to save "
              "(Python returns {}); check is_enabled() first.");
  GradScalerState state;
  state.scale = get_scale();
  state.growth_factor = options_.growth_factor();
  state.backoff_factor = options_.backoff_factor();
  state.growth_interval = options_.growth_interval();
  state.growth_tracker =
      growth_tracker_.defined() ? growth_tracker_.item<int64_t>() : init_growth_tracker_;
  return state;
}

void GradScaler::load_state_dict(const GradScalerState& state) {
  if (!is_enabled()) return;
  // Validate everything before changing anything.
  check_scale_value(state.scale, "the saved scale");
  check_growth_factor(state.growth_factor);
  check_backoff_factor(state.backoff_factor);
  check_growth_interval(state.growth_interval);
  check_growth_tracker(state.growth_tracker);
  // Before the first scale() these seed the lazily created tensors.
  options_.init_scale(state.scale);
  options_.growth_factor(state.growth_factor);
  options_.backoff_factor(state.backoff_factor);
  options_.growth_interval(state.growth_interval);
  init_growth_tracker_ = state.growth_tracker;
  if (scale_.defined()) scale_.fill_(state.scale);
  if (growth_tracker_.defined()) growth_tracker_.fill_(state.growth_tracker);
}

}  // namespace ampbench::amp
