// Gradient-norm clipping without a host sync, as Python's
// torch.nn.utils.clip_grad_norm_ computes it (foreach norms, the total norm
// and the clamped coefficient stay tensors on the device): LibTorch's
// clip_grad_norm_ returns the norm as a double, which waits for the device
// every step. The foreach and fused optimizer paths clip with this.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace ampbench::optim {

// Scales the gradients of `params` in place so their total 2-norm is at most
// `max_norm` (coefficient max_norm / (norm + 1e-6), clamped at 1). Returns
// the total norm before clipping, as a device scalar.
at::Tensor clip_grad_norm_on_device(const std::vector<at::Tensor>& params, double max_norm);

}  // namespace ampbench::optim
