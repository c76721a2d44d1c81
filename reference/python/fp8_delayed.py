"""Transformer Engine's delayed scaling (its `DelayedScaling` recipe) for one
Linear layer, written from the algorithm it documents, as the oracle of the
C++ FP8 Linear's `delayed` recipe (harness/fp8).

Each of the input, the weight and the output gradient has an amax history
(`history_len` entries, the newest at 0) and a scale (1 at first). A cast
multiplies by the current scale and clamps to the format's largest finite
value (Transformer Engine saturates), then records the tensor's amax at
history[0]. The update that follows gives the next step's scale:

    amax  = max(history)            (amax_compute "max")
          = history[0]              (amax_compute "most_recent")
    scale = (fp8_max / amax) / 2 ** margin, kept when amax is 0 or not finite
    history rolled by one towards its end, history[0] zeroed

so a scale always comes from earlier steps, never from the tensor it
scales. HYBRID format: e4m3 forward (input, weight), e5m2 backward (output
gradient). The GEMMs are torch._scaled_mm with the reciprocal scales: the
output GEMM with fast accumulation, both gradient GEMMs without; the output in
the input's dtype, the gradients in the output gradient's. Under autocast the
rule is torchao's Float8Linear's, so that every recipe meets autocast alike:
the output in the autocast dtype, the GEMMs outside autocast, and on CUDA the
input cast to the autocast dtype first.
"""

from __future__ import annotations

import torch

E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2


class DelayedTensor:
    """The amax history and scale of one tensor of one Linear."""

    def __init__(self, history_len: int, device: torch.device):
        if history_len < 1:
            raise ValueError(f"history_len must be at least 1 (got {history_len})")
        self.history = torch.zeros(history_len, dtype=torch.float32, device=device)
        self.scale = torch.ones((), dtype=torch.float32, device=device)

    def cast(self, hp: torch.Tensor, fp8: torch.dtype, margin: int, algo: str) -> tuple[torch.Tensor, torch.Tensor]:
        scale = self.scale.clone()
        fmax = torch.finfo(fp8).max
        data = (hp.float() * scale).clamp(min=-fmax, max=fmax).to(fp8)
        with torch.no_grad():
            self.history[0] = hp.abs().max().float()
            self._update(fmax, margin, algo)
        return data, scale

    def _update(self, fmax: float, margin: int, algo: str) -> None:
        amax = torch.max(self.history, dim=0).values if algo == "max" else self.history[0].clone()
        sf = (fmax / amax) / (2 ** margin)
        sf = torch.where(amax > 0.0, sf, self.scale)
        sf = torch.where(torch.isfinite(amax), sf, self.scale)
        self.scale.copy_(sf)
        if self.history.shape[0] > 1:
            self.history.copy_(torch.roll(self.history, -1, 0))
        self.history[0].fill_(0.0)


def _mm(a: torch.Tensor, a_scale: torch.Tensor, b: torch.Tensor, b_scale: torch.Tensor, out_dtype, fast: bool):
    # _scaled_mm wants a row-major first and a column-major second operand;
    # autocast's own policy for it would change the result.
    with torch.autocast(a.device.type, enabled=False):
        return torch._scaled_mm(a.contiguous(), b.t().contiguous().t(), scale_a=a_scale.reciprocal(),
                                scale_b=b_scale.reciprocal(), out_dtype=out_dtype, use_fast_accum=fast)


class _DelayedMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x2d, weight, lin, out_dtype):
        x8, sx = lin.input.cast(x2d, E4M3, lin.margin, lin.algo)
        w8, sw = lin.weight_state.cast(weight, E4M3, lin.margin, lin.algo)
        ctx.save_for_backward(x8, sx, w8, sw)
        ctx.lin = lin
        return _mm(x8, sx, w8.t(), sw, out_dtype, True)

    @staticmethod
    def backward(ctx, grad):
        x8, sx, w8, sw = ctx.saved_tensors
        lin = ctx.lin
        g8, sg = lin.grad_output.cast(grad, E5M2, lin.margin, lin.algo)
        grad_input = _mm(g8, sg, w8, sw, grad.dtype, False)
        grad_weight = _mm(g8.t(), sg, x8, sx, grad.dtype, False)
        return grad_input, grad_weight, None, None


class DelayedScalingLinear(torch.nn.Module):
    def __init__(self, linear: torch.nn.Linear, history_len: int = 16, margin: int = 0, algo: str = "max"):
        super().__init__()
        if algo not in ("max", "most_recent"):
            raise ValueError(f"amax_compute must be max or most_recent (got {algo!r})")
        self.weight, self.bias = linear.weight, linear.bias
        self.margin, self.algo = margin, algo
        device = linear.weight.device
        self.input = DelayedTensor(history_len, device)
        self.weight_state = DelayedTensor(history_len, device)
        self.grad_output = DelayedTensor(history_len, device)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        device, out_dtype = x.device.type, x.dtype
        if torch.is_autocast_enabled(device):
            out_dtype = torch.get_autocast_dtype(device)
            if device == "cuda":
                x = x.to(out_dtype)
        out = _DelayedMatmul.apply(x.reshape(-1, x.shape[-1]), self.weight, self, out_dtype)
        out = out.reshape(*x.shape[:-1], out.shape[-1])
        return out if self.bias is None else out + self.bias.to(out.dtype)

    def scales(self) -> list[float]:
        return [float(self.input.scale), float(self.weight_state.scale), float(self.grad_output.scale)]
