// The per-case settings a user's model comes with: the optimizer's keyword
// arguments, the loss, where an injected inf goes, multi's loss coefficients.
#include "suite/suite_sections.h"

#include <c10/core/Device.h>

#include <cmath>

#include "models/model.h"
#include "suite/memory_estimate.h"

namespace ampbench::suite_detail {
namespace {

double finite_number(Reader& r, const std::string& key, double fallback) {
  const double v = r.get(key, fallback);
  if (!std::isfinite(v)) r.fail(key, "must be finite");
  return v;
}

optim::Settings read_one_optimizer(Reader r, optim::Kind kind, optim::Settings s) {
  s.weight_decay = finite_number(r, "weight_decay", s.weight_decay);
  if (kind == optim::Kind::kSgd) {
    s.momentum = finite_number(r, "momentum", s.momentum);
    s.dampening = finite_number(r, "dampening", s.dampening);
    s.nesterov = r.get("nesterov", s.nesterov);
  } else {
    if (r.has("betas")) {
      const json& betas = r.raw("betas");
      if (!betas.is_array() || betas.size() != 2 || !betas[0].is_number() || !betas[1].is_number())
        r.fail("betas", "expected [beta1, beta2], got " + betas.dump());
      s.beta1 = betas[0].get<double>();
      s.beta2 = betas[1].get<double>();
    }
    s.eps = finite_number(r, "eps", s.eps);
    s.amsgrad = r.get("amsgrad", s.amsgrad);
  }
  for (const auto& key : r.keys())
    if (!contains(optim::setting_keys(kind), key))
      r.fail(key, "not a setting of " + optim::to_string(kind) + " (its settings: " + join(optim::setting_keys(kind)) + ")");
  if (const std::string why = optim::settings_refusal(kind, s); !why.empty()) r.fail("", why);
  return s;
}

}  // namespace

std::map<std::string, optim::Settings> default_optimizer_settings() {
  std::map<std::string, optim::Settings> out;
  for (const auto& name : optim::kind_names()) out[name] = optim::default_settings(*optim::parse_kind(name));
  return out;
}

void read_training_options(Reader& r, TrainingSettings& s) {
  if (r.has("optimizer_settings")) {
    Reader all = r.child("optimizer_settings");
    for (const auto& name : all.keys()) {
      require_known(all, name, name, optim::kind_names(), "optimizer");
      s.optimizer_settings[name] = read_one_optimizer(all.child(name), *optim::parse_kind(name), s.optimizer_settings[name]);
    }
  }
  if (r.has("loss")) {
    const auto name = r.require<std::string>("loss");
    const auto kind = parse_loss_kind(name);
    if (!kind) r.fail("loss", "unknown loss '" + name + "' (known: " + join(loss_kind_names()) + ")");
    s.loss.kind = *kind;
    if (s.loss.kind != LossKind::kCrossEntropy) s.loss.label_smoothing = 0;
  }
  s.loss.label_smoothing = r.get("label_smoothing", s.loss.label_smoothing);
  if (!(s.loss.label_smoothing >= 0 && s.loss.label_smoothing <= 1))
    r.fail("label_smoothing", "must be in [0, 1]");
  if (s.loss.label_smoothing != 0 && s.loss.kind != LossKind::kCrossEntropy)
    r.fail("label_smoothing", "applies to cross_entropy only, not " + to_string(s.loss.kind));
  s.inject_inf_param = r.get("inject_inf_param", s.inject_inf_param);
  if (r.has("multi_coefficients")) {
    const json& c = r.raw("multi_coefficients");
    auto pair = [](const json& p) { return p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number(); };
    if (!c.is_array() || c.size() != 2 || !pair(c[0]) || !pair(c[1]))
      r.fail("multi_coefficients", "expected [[a, b], [c, d]] (loss0 = loss(a*out0 + b*out1), loss1 = loss(c*out0 + "
                                   "d*out1)), got " + c.dump());
    s.multi_coefficients = {c[0][0].get<double>(), c[0][1].get<double>(), c[1][0].get<double>(), c[1][1].get<double>()};
    for (double v : s.multi_coefficients)
      if (!std::isfinite(v) || std::abs(v) > kMaxFactor) r.fail("multi_coefficients", "must be finite, at most 1e6");
  }
}

std::pair<std::string, std::string> case_options_refusal(const CaseSpec& c) {
  if (c.loss.kind != LossKind::kCrossEntropy && c.model->target == TargetKind::kNextToken)
    return {"loss", to_string(c.loss.kind) + " cannot train " + c.model->name +
                        ": a next-token model's loss is cross-entropy over its vocabulary"};
  if (c.inject_inf_param.empty()) return {};
  if (c.inject_inf_step < 0) return {"inject_inf_param", "needs an \"inject_inf_step\""};
  // The names are the built module's: build it once, on the CPU, unless its
  // parameters alone would not fit (the suite's memory check then says so).
  if (c.model->parameters(c.sizes) * sizeof(float) > 0.5 * static_cast<double>(physical_memory_bytes())) return {};
  const Model m = make_model(*c.model, c.sizes, c.seed, c10::Device(c10::kCPU));
  const std::vector<std::string> names = m.module->named_parameters().keys();
  if (contains(names, c.inject_inf_param)) return {};
  return {"inject_inf_param", "model " + c.model->name + " has no parameter '" + c.inject_inf_param +
                                  "' (its parameters: " + join(names) + ")"};
}

}  // namespace ampbench::suite_detail
