#include "optim/impl.h"

#include <stdexcept>

namespace ampbench::optim {

std::string to_string(Kind kind) { return kind == Kind::kAdamW ? "adamw" : "sgd"; }

std::optional<Kind> parse_kind(const std::string& name) {
  for (Kind kind : {Kind::kSgd, Kind::kAdamW})
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

}  // namespace ampbench::optim
