#include "optim/impl.h"

#include <stdexcept>

namespace ampbench::optim {

std::string to_string(Kind kind) {
  switch (kind) {
    case Kind::kSgd: return "sgd";
    case Kind::kAdam: return "adam";
    case Kind::kAdamW: return "adamw";
  }
  return "sgd";
}

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names = {"sgd", "adam", "adamw"};
  return names;
}

std::optional<Kind> parse_kind(const std::string& name) {
  for (Kind kind : {Kind::kSgd, Kind::kAdam, Kind::kAdamW})
    if (to_string(kind) == name) return kind;
  return std::nullopt;
}

std::string to_string(Impl impl) {
  switch (impl) {
    case Impl::kLoop: return "loop";
    case Impl::kForeach: return "foreach";
    case Impl::kFused: return "fused";
  }
  return "loop";
}

Impl parse_impl(const std::string& name) {
  for (Impl impl : {Impl::kLoop, Impl::kForeach, Impl::kFused})
    if (to_string(impl) == name) return impl;
  throw std::invalid_argument("unknown optimizer_impl '" + name + "' (known: loop, foreach, fused)");
}

Settings default_settings(Kind kind) {
  Settings s;
  if (kind == Kind::kAdamW) s.weight_decay = 0.01;
  return s;
}

const std::vector<std::string>& setting_keys(Kind kind) {
  static const std::vector<std::string> sgd = {"momentum", "dampening", "nesterov", "weight_decay"};
  static const std::vector<std::string> adam = {"betas", "eps", "weight_decay", "amsgrad"};
  return kind == Kind::kSgd ? sgd : adam;
}

std::string settings_refusal(Kind kind, const Settings& s) {
  if (!(s.weight_decay >= 0 && s.weight_decay < 1)) return "weight_decay must be in [0, 1)";
  if (kind == Kind::kSgd) {
    if (!(s.momentum >= 0 && s.momentum < 1)) return "momentum must be in [0, 1)";
    if (!(s.dampening >= 0 && s.dampening <= 1)) return "dampening must be in [0, 1]";
    if (s.nesterov && (s.momentum <= 0 || s.dampening != 0))
      return "nesterov needs momentum > 0 and dampening 0 (as torch.optim.SGD requires)";
    return "";
  }
  if (!(s.beta1 >= 0 && s.beta1 < 1) || !(s.beta2 >= 0 && s.beta2 < 1)) return "betas must be in [0, 1)";
  if (!(s.eps > 0 && s.eps < 1)) return "eps must be in (0, 1)";
  return "";
}

}  // namespace ampbench::optim
