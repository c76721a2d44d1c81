#include "runner/checkpoint.h"

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/scalar_tensor.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>
#include <torch/serialize.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "fp8/fp8_linear.h"
#include "io/atomic_file.h"
#include "optim/optimizers.h"

namespace ampbench {
namespace {

using Entries = c10::Dict<std::string, at::Tensor>;

at::Tensor scalar(double v) { return at::scalar_tensor(v, at::kDouble); }
at::Tensor scalar(int64_t v) { return at::scalar_tensor(v, at::kLong); }

// Visits every named parameter and buffer of every model.
template <typename Fn>
void for_each_model_tensor(const TrainingState& s, Fn fn) {
  for (size_t i = 0; i < s.models.size(); ++i) {
    const std::string prefix = "model" + std::to_string(i) + ".";
    for (const auto& item : s.models[i].module->named_parameters()) fn(prefix + item.key(), item.value());
    for (const auto& item : s.models[i].module->named_buffers()) fn(prefix + item.key(), item.value());
  }
}

// O2's float32 master weights, which the float16 model only approximates.
template <typename Fn>
void for_each_master(const TrainingState& s, Fn fn) {
  for (size_t i = 0; i < s.masters.size(); ++i) {
    const std::vector<at::Tensor>& params = s.masters[i].params();
    for (size_t k = 0; k < params.size(); ++k) fn("master" + std::to_string(i) + "." + std::to_string(k), params[k]);
  }
}

void save_optimizer(const torch::optim::Optimizer& opt, const std::string& prefix, Entries& out) {
  const std::vector<at::Tensor>& params = opt.param_groups().front().params();
  for (size_t k = 0; k < params.size(); ++k) {
    const std::string name = prefix + std::to_string(k) + ".";
    const auto it = opt.state().find(params[k].unsafeGetTensorImpl());
    if (it != opt.state().end()) {
      if (const std::optional<optim::ParamStateTensors> st = optim::param_state(*it->second)) {
        if (st->momentum_buffer.defined()) out.insert(name + "momentum_buffer", st->momentum_buffer.cpu());
        if (st->exp_avg.defined()) {
          out.insert(name + "exp_avg", st->exp_avg.cpu());
          out.insert(name + "exp_avg_sq", st->exp_avg_sq.cpu());
          out.insert(name + "step", scalar(st->step));
        }
        if (st->max_exp_avg_sq.defined()) out.insert(name + "max_exp_avg_sq", st->max_exp_avg_sq.cpu());
      }
    }
    if (auto* fused = dynamic_cast<const optim::FusedAdam*>(&opt)) out.insert(name + "step_count", fused->step_counts()[k].cpu());
  }
}

// The FP8 recipes' scaling state: delayed scaling's amax histories, scales
// and update counts (a frozen tensorwise scale lives there too). The dynamic
// recipes keep nothing between steps, so theirs restore nothing that matters.
template <typename Fn>
void for_each_fp8_state(const TrainingState& s, Fn fn) {
  static const char* const kOperands[] = {"input", "weight", "grad_output"};
  for (size_t i = 0; i < s.fp8_states.size(); ++i)
    for (size_t l = 0; l < s.fp8_states[i].size(); ++l) {
      fp8::Fp8LinearState& layer = *s.fp8_states[i][l];
      fp8::DelayedTensorState* operands[] = {&layer.input, &layer.weight, &layer.grad_output};
      for (int k = 0; k < 3; ++k) {
        const std::string prefix = "fp8" + std::to_string(i) + "." + std::to_string(l) + "." + kOperands[k] + ".";
        fn(prefix + "amax_history", operands[k]->history);
        fn(prefix + "scale", operands[k]->scale);
        fn(prefix + "updates", operands[k]->updates);
      }
    }
}

const at::Tensor& entry(const Entries& in, const std::string& name, const std::string& path) {
  const auto it = in.find(name);
  if (it == in.end()) throw std::runtime_error(path + ": checkpoint has no entry \"" + name + "\"");
  return it->value();
}

void copy_into(const at::Tensor& dst, const at::Tensor& src, const std::string& name, const std::string& path) {
  if (!dst.sizes().equals(src.sizes()))
    throw std::runtime_error(path + ": checkpoint entry \"" + name + "\" has another shape than the model's");
  at::NoGradGuard no_grad;
  dst.copy_(src);
}

void load_optimizer(torch::optim::Optimizer& opt, const std::string& prefix, const Entries& in,
                    const std::string& path) {
  const std::vector<at::Tensor>& params = opt.param_groups().front().params();
  for (size_t k = 0; k < params.size(); ++k) {
    const std::string name = prefix + std::to_string(k) + ".";
    const at::Tensor& p = params[k];
    auto on_device = [&](const std::string& field) { return entry(in, name + field, path).to(p.device()).clone(); };
    optim::ParamStateTensors t;
    if (in.contains(name + "momentum_buffer")) t.momentum_buffer = on_device("momentum_buffer");
    if (in.contains(name + "exp_avg")) {
      t.exp_avg = on_device("exp_avg");
      t.exp_avg_sq = on_device("exp_avg_sq");
      t.step = entry(in, name + "step", path).item<int64_t>();
    }
    if (in.contains(name + "max_exp_avg_sq")) t.max_exp_avg_sq = on_device("max_exp_avg_sq");
    if (t.momentum_buffer.defined() || t.exp_avg.defined()) {
      opt.state()[p.unsafeGetTensorImpl()] = optim::make_param_state(opt, t);
    } else {
      opt.state().erase(p.unsafeGetTensorImpl());  // none saved: none before the first step either
    }
    if (auto* fused = dynamic_cast<optim::FusedAdam*>(&opt)) copy_into(fused->step_counts()[k], entry(in, name + "step_count", path), name + "step_count", path);
  }
}

}  // namespace

void save_checkpoint(const TrainingState& s, const std::string& path) {
  Entries out;
  for_each_model_tensor(s, [&](const std::string& name, const at::Tensor& t) { out.insert(name, t.detach().cpu()); });
  for (size_t i = 0; i < s.optimizers.size(); ++i)
    save_optimizer(*s.optimizers[i], "optimizer" + std::to_string(i) + ".", out);
  for_each_master(s, [&](const std::string& name, const at::Tensor& t) { out.insert(name, t.detach().cpu()); });
  for_each_fp8_state(s, [&](const std::string& name, const at::Tensor& t) { out.insert(name, t.cpu()); });
  if (s.scaler.is_enabled()) {
    const amp::GradScalerState st = s.scaler.state_dict();
    out.insert("scaler.scale", scalar(st.scale));
    out.insert("scaler.growth_factor", scalar(st.growth_factor));
    out.insert("scaler.backoff_factor", scalar(st.backoff_factor));
    out.insert("scaler.growth_interval", scalar(st.growth_interval));
    out.insert("scaler.growth_tracker", scalar(st.growth_tracker));
  }
  out.insert("step_index", scalar(static_cast<int64_t>(s.step_index)));
  const std::vector<char> bytes = torch::pickle_save(out);
  io::write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
}

void load_checkpoint(TrainingState& s, const std::string& path, bool restore_scaler, bool restore_fp8) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error(path + ": cannot read checkpoint");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const c10::IValue value = torch::pickle_load(bytes);
  if (!value.isGenericDict()) throw std::runtime_error(path + ": not a checkpoint (expected a dict)");
  Entries in = c10::impl::toTypedDict<std::string, at::Tensor>(value.toGenericDict());
  for_each_model_tensor(s, [&](const std::string& name, const at::Tensor& t) {
    copy_into(t, entry(in, name, path), name, path);
  });
  for (size_t i = 0; i < s.optimizers.size(); ++i)
    load_optimizer(*s.optimizers[i], "optimizer" + std::to_string(i) + ".", in, path);
  for_each_master(s, [&](const std::string& name, const at::Tensor& t) { copy_into(t, entry(in, name, path), name, path); });
  if (restore_fp8)
    for_each_fp8_state(s, [&](const std::string& name, const at::Tensor& t) { copy_into(t, entry(in, name, path), name, path); });
  if (restore_scaler && s.scaler.is_enabled()) {
    amp::GradScalerState st;
    st.scale = entry(in, "scaler.scale", path).item<double>();
    st.growth_factor = entry(in, "scaler.growth_factor", path).item<double>();
    st.backoff_factor = entry(in, "scaler.backoff_factor", path).item<double>();
    st.growth_interval = entry(in, "scaler.growth_interval", path).item<int64_t>();
    st.growth_tracker = entry(in, "scaler.growth_tracker", path).item<int64_t>();
    s.scaler.load_state_dict(st);
  }
  s.step_index = static_cast<int>(entry(in, "step_index", path).item<int64_t>());
}

}  // namespace ampbench
