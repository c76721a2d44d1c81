#include "optim/clip.h"

#include <ATen/core/grad_mode.h>
#include <ATen/ops/_foreach_mul.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/_foreach_norm.h>
#include <ATen/ops/clamp.h>
#include <ATen/ops/linalg_vector_norm.h>
#include <ATen/ops/reciprocal.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/zeros.h>

namespace ampbench::optim {

at::Tensor clip_grad_norm_on_device(const std::vector<at::Tensor>& params, double max_norm) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return at::zeros({});
  at::NoGradGuard no_grad;
  // One device in these workloads; Python groups by device and moves the
  // norms to the first one, which this matches for a single device.
  const std::vector<at::Tensor> norms = at::_foreach_norm(grads, 2);
  const at::Tensor total = at::linalg_vector_norm(at::stack(norms), 2);
  // Python's `max_norm / (total + 1e-6)` is Tensor.__rtruediv__, a
  // reciprocal then a multiply; C++'s Scalar / Tensor divides once, an ulp
  // away now and then.
  const at::Tensor coef = at::clamp((total + 1e-6).reciprocal() * max_norm, std::nullopt, 1.0);
  at::_foreach_mul_(grads, coef);
  return total;
}

}  // namespace ampbench::optim
