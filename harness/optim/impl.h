// Which optimizer a case trains with, which implementation of it runs (a
// case dimension, part of its id when not "loop"), and its keyword arguments;
// the implementations are in optimizers.h. Free of LibTorch, so CaseSpec and
// the suite parser can name them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ampbench::optim {

enum class Kind { kSgd, kAdam, kAdamW };
std::string to_string(Kind kind);                        // "sgd" | "adam" | "adamw"
std::optional<Kind> parse_kind(const std::string& name);  // nullopt for another name
const std::vector<std::string>& kind_names();

enum class Impl { kLoop, kForeach, kFused };
std::string to_string(Impl impl);          // "loop" | "foreach" | "fused"
Impl parse_impl(const std::string& name);  // throws std::invalid_argument naming the value

// torch.optim's keyword arguments, under its names. SGD reads momentum,
// dampening, nesterov and weight_decay; Adam and AdamW read betas, eps,
// weight_decay and amsgrad. The defaults are torch.optim's except SGD's
// momentum, which the harness has always trained with (0.9).
struct Settings {
  double momentum = 0.9;
  double dampening = 0;
  bool nesterov = false;
  double weight_decay = 0;  // AdamW: 0.01 (default_settings)
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  bool amsgrad = false;
};

Settings default_settings(Kind kind);
// The suite keys `kind` reads (the others are refused by name).
const std::vector<std::string>& setting_keys(Kind kind);
// Why these settings cannot run ("" when they can), as torch.optim refuses
// them (nesterov needs momentum and no dampening, betas in [0, 1), ...).
std::string settings_refusal(Kind kind, const Settings& s);

}  // namespace ampbench::optim
