// Which implementation of an optimizer a case runs (a case dimension, part of
// its id when not "loop"); the implementations are in optimizers.h. Free of
// LibTorch, so CaseSpec and the suite parser can name it.
#pragma once

#include <string>

namespace ampbench::optim {

enum class Impl { kLoop, kForeach, kFused };
std::string to_string(Impl impl);          // "loop" | "foreach" | "fused"
Impl parse_impl(const std::string& name);  // throws std::invalid_argument naming the value

}  // namespace ampbench::optim
