"""The MXFP8 recipe's Linear for the oracle: torchao's emulated MXFP8 path
(torchao/prototype/moe_training/mxfp8_linear.py, mx_mm with
KernelPreference.EMULATED), on any number of rows.

torchao's casts (prototype/mx_formats/mx_tensor.py: to_mx, to_dtype) are
used as they are. What this module adds is the reduced dimension of the
weight gradient's GEMM, the batch's rows: torchao asserts it is a multiple
of 32, which a ViT's tokens (17 per image in smoke) are not. Each cast
therefore pads its tensor with zeros to whole blocks (zeros change no
block's amax) and drops the padding again after dequantizing, and the GEMM
runs on the true shapes, as the C++ recipe does (harness/fp8/mx_cast.h).
On shapes torchao takes, this is its mx_mm bit for bit
(reference/python/tests/test_mx_linear_vs_torchao.py holds it there).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

BLOCK = 32


def _modes():
    from torchao.prototype.mx_formats.config import ScaleCalculationMode

    return {"floor": ScaleCalculationMode.FLOOR, "ceil": ScaleCalculationMode.CEIL,
            "rceil": ScaleCalculationMode.RCEIL}


def cast(hp: torch.Tensor, mode: str = "floor", block: int = BLOCK) -> tuple[torch.Tensor, torch.Tensor]:
    """torchao's to_mx of a 2-D tensor along dim 1, zero-padded to whole
    blocks: (e4m3 data [rows, cols], E8M0 exponents as uint8 [rows, blocks])."""
    from torchao.prototype.mx_formats.mx_tensor import to_mx

    cols = hp.shape[1]
    pad = -cols % block
    scale, data = to_mx(F.pad(hp, (0, pad)).contiguous(), torch.float8_e4m3fn, block, _modes()[mode])
    return data[:, :cols], scale.view(torch.uint8)


def dequantize(data: torch.Tensor, exponent: torch.Tensor, dtype: torch.dtype, block: int = BLOCK) -> torch.Tensor:
    """torchao's to_dtype on the zero-padded data, the padding dropped."""
    from torchao.prototype.mx_formats.mx_tensor import to_dtype

    cols = data.shape[1]
    padded = F.pad(data.to(dtype), (0, -cols % block)).to(data.dtype).contiguous()
    return to_dtype(padded, exponent.view(torch.float8_e8m0fnu), torch.float8_e4m3fn, block, dtype)[:, :cols]


def mx_mm(a: torch.Tensor, b: torch.Tensor, mode: str) -> torch.Tensor:
    """a [M, K] @ b [N, K]^T, both cast along K, dequantized to a's dtype,
    then one mm (torchao's emulated MX GEMM)."""
    da = dequantize(*cast(a, mode), a.dtype).contiguous()
    db = dequantize(*cast(b, mode), b.dtype).contiguous()
    return torch.mm(da, db.t())


class _MxMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, mode: str) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        ctx.mode = mode
        return mx_mm(x, weight, mode)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        x, weight = ctx.saved_tensors
        g = grad_out.contiguous()
        grad_input = mx_mm(g, weight.t().contiguous(), ctx.mode)
        grad_weight = mx_mm(g.t().contiguous(), x.t().contiguous(), ctx.mode)
        return grad_input, grad_weight, None


class MxLinear(torch.nn.Module):
    """A Linear's three GEMMs in MXFP8, on the wrapped Linear's own parameters."""

    def __init__(self, linear: torch.nn.Linear, mode: str = "floor"):
        super().__init__()
        if mode not in _modes():
            raise ValueError(f"unknown mx_scale_mode {mode!r} (floor, rceil, ceil)")
        self.weight = linear.weight
        self.bias = linear.bias
        self.in_features, self.out_features, self.mode = linear.in_features, linear.out_features, mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1])
        out = _MxMatmul.apply(x2, self.weight, self.mode).reshape(*x.shape[:-1], self.out_features)
        return out if self.bias is None else out + self.bias.to(out.dtype)
