"""The blockwise FP8 recipe's Linear for the oracle (DeepSeek-V3's recipe,
Transformer Engine's Float8BlockScaling): torchao's Float8BlockwiseLinear
(torchao/prototype/blockwise_fp8_training/linear.py, fp8_blockwise_mm) with
its GPU quantizers and GEMMs replaced by torchao's pure-torch reference
quantizers (kernels.py: torch_blockwise_scale_act_quant_lhs, _rhs,
torch_blockwise_scale_weight_quant) and a dequantize-then-mm in float32:

    output      x 1 x 128            @ weight^T 128 x 128
    grad_input  dy 1 x 128           @ weight 128 x 128
    grad_weight dy^T 1 x 128         @ x 128 x 1

The quantizers refuse a dimension that is not a whole number of tiles; the
weight gradient's reduced dimension is the batch's rows, which a model's
tokens need not fill. Each cast therefore pads its tensor with zeros to
whole tiles (zeros change no tile's amax) and drops the padding, as the C++
recipe does (harness/fp8/blockwise_cast.h); on shapes torchao takes it is
torchao's quantizers bit for bit (reference/python/tests/
test_blockwise_linear_vs_torchao.py holds it there, and the C++ to it).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

TILE = 128


def _kernels():
    from torchao.prototype.blockwise_fp8_training import kernels

    return kernels


def _pad(x: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    return F.pad(x, (0, -x.shape[1] % cols, 0, -x.shape[0] % rows)).contiguous()


def _spread(scale: torch.Tensor, rows: int, cols: int, shape) -> torch.Tensor:
    return scale.repeat_interleave(rows, 0).repeat_interleave(cols, 1)[: shape[0], : shape[1]]


def cast_act(x: torch.Tensor, tile: int = TILE) -> tuple[torch.Tensor, torch.Tensor]:
    """1 x tile along dim 1: (e4m3 data, float32 dequantizing scales [rows, tiles])."""
    data, scale = _kernels().torch_blockwise_scale_act_quant_lhs(_pad(x, 1, tile), tile)
    return data[:, : x.shape[1]], scale


def cast_act_t(x: torch.Tensor, tile: int = TILE) -> tuple[torch.Tensor, torch.Tensor]:
    """tile x 1 along dim 0: (data, scales [tiles, cols])."""
    data, scale = _kernels().torch_blockwise_scale_act_quant_rhs(_pad(x, tile, 1), tile)
    return data[: x.shape[0]], scale


def cast_weight(w: torch.Tensor, tile: int = TILE) -> tuple[torch.Tensor, torch.Tensor]:
    """tile x tile: (data, scales [tiles down, tiles across])."""
    data, scale = _kernels().torch_blockwise_scale_weight_quant(_pad(w, tile, tile), tile)
    return data[: w.shape[0], : w.shape[1]], scale


def dequantize(data: torch.Tensor, scale: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """data * its tile's scale, float32, contiguous."""
    return (data.float() * _spread(scale, rows, cols, data.shape)).contiguous()


class _BlockwiseMatmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(x, weight)
        xq = dequantize(*cast_act(x.contiguous()), 1, TILE)
        wq = dequantize(*cast_weight(weight.contiguous()), TILE, TILE)
        return torch.mm(xq, wq.t()).to(x.dtype)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        x, weight = ctx.saved_tensors
        g = grad_out.contiguous()
        gq = dequantize(*cast_act(g), 1, TILE)
        wq = dequantize(*cast_weight(weight.contiguous()), TILE, TILE)
        grad_input = torch.mm(gq, wq).to(g.dtype)
        gtq = dequantize(*cast_act(g.t().contiguous()), 1, TILE)
        xq = dequantize(*cast_act_t(x.contiguous()), TILE, 1)
        grad_weight = torch.mm(gtq, xq).to(g.dtype)
        return grad_input, grad_weight


class BlockwiseLinear(torch.nn.Module):
    """A Linear's three GEMMs in blockwise FP8, on the wrapped Linear's own parameters."""

    def __init__(self, linear: torch.nn.Linear):
        super().__init__()
        if linear.in_features % TILE or linear.out_features % TILE:
            raise ValueError(f"blockwise FP8 needs both dimensions divisible by {TILE}, not "
                             f"{linear.in_features} x {linear.out_features}")
        self.weight = linear.weight
        self.bias = linear.bias
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1])
        out = _BlockwiseMatmul.apply(x2, self.weight).reshape(*x.shape[:-1], self.out_features)
        return out if self.bias is None else out + self.bias.to(out.dtype)
