#include "workloads/master_weights.h"

#include <torch/utils.h>

namespace ampbench {

MasterWeights::MasterWeights(std::vector<at::Tensor> model_params) : model_(std::move(model_params)) {
  masters_.reserve(model_.size());
  for (const at::Tensor& p : model_) masters_.push_back(p.detach().to(at::kFloat, false, /*copy=*/true).requires_grad_(true));
}

void MasterWeights::accumulate_grads() {
  for (size_t i = 0; i < model_.size(); ++i) {
    at::Tensor& grad = model_[i].mutable_grad();
    if (!grad.defined()) continue;
    at::Tensor& master_grad = masters_[i].mutable_grad();
    if (master_grad.defined()) {
      master_grad.add_(grad.to(at::kFloat));
    } else {
      master_grad = grad.to(at::kFloat, false, /*copy=*/true);
    }
    grad.reset();
  }
}

void MasterWeights::publish() const {
  const torch::NoGradGuard no_grad;
  for (size_t i = 0; i < model_.size(); ++i) model_[i].copy_(masters_[i]);
}

}  // namespace ampbench
