// Which optimizer a case trains with, and which implementation of it runs (a case dimension, part of
// its id when not "loop"); the implementations are in optimizers.h. Free of
// LibTorch, so CaseSpec and the suite parser can name it.
#pragma once

#include <optional>
#include <string>

namespace ampbench::optim {

enum class Kind { kSgd, kAdamW };
std::string to_string(Kind kind);                        // "sgd" | "adamw"
std::optional<Kind> parse_kind(const std::string& name);  // nullopt for another name

enum class Impl { kLoop, kForeach, kFused };
std::string to_string(Impl impl);          // "loop" | "foreach" | "fused"
Impl parse_impl(const std::string& name);  // throws std::invalid_argument naming the value

}  // namespace ampbench::optim
