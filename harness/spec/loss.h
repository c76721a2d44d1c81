// The loss a case trains with, as torch.nn.functional names it. Cross-entropy
// compares the logits with one class per sample (or per position, for a
// next-token model); MSE and BCE-with-logits compare them with float targets
// of the output's shape (data/synthetic_data.h draws them).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ampbench {

enum class LossKind { kCrossEntropy, kMse, kBceWithLogits };

struct LossSettings {
  LossKind kind = LossKind::kCrossEntropy;
  double label_smoothing = 0;  // cross-entropy only, in [0, 1]
};

std::string to_string(LossKind kind);  // "cross_entropy" | "mse" | "bce_with_logits"
std::optional<LossKind> parse_loss_kind(const std::string& name);
const std::vector<std::string>& loss_kind_names();

}  // namespace ampbench
