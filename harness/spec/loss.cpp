#include "spec/loss.h"

namespace ampbench {

std::string to_string(LossKind kind) {
  switch (kind) {
    case LossKind::kCrossEntropy: return "cross_entropy";
    case LossKind::kMse: return "mse";
    case LossKind::kBceWithLogits: return "bce_with_logits";
  }
  return "cross_entropy";
}

const std::vector<std::string>& loss_kind_names() {
  static const std::vector<std::string> names = {"cross_entropy", "mse", "bce_with_logits"};
  return names;
}

std::optional<LossKind> parse_loss_kind(const std::string& name) {
  for (LossKind kind : {LossKind::kCrossEntropy, LossKind::kMse, LossKind::kBceWithLogits})
    if (to_string(kind) == name) return kind;
  return std::nullopt;
}

}  // namespace ampbench
