"""The NVFP4 recipe's Linear for the oracle: the NVFP4 training recipe
(Transformer Engine's NVFP4BlockScaling; torchao's NVFP4 training Linear,
prototype/moe_training/nvfp4_training/nvfp4_linear.py) emulated on torchao's
NVFP4 cast.

What comes from torchao as it is: the cast's scales and its round-to-nearest
values (prototype/mx_formats/nvfp4_tensor.py: nvfp4_quantize, with the
tensor scale of per_tensor_amax_to_scale), the dequantization
(NVFP4Tensor.dequantize) and the Hadamard matrix with its signs
(nvfp4_training/hadamard_utils.py: get_rht_matrix). What torchao only has as
a GPU instruction (cvt.rs in a Triton kernel) is written here from its
definition: stochastic rounding of a value between two E2M1 neighbours up
with the probability of its distance from the lower one, decided by one
uniform draw per value from a recorded stream (a CPU generator), so that
the C++ recipe (harness/fp8/nvfp4_linear.h) and this one see the same draws.
Its GEMMs are emulated (both operands dequantized, one mm), as torchao's
emulated MX GEMM; reduced dimensions are padded with zeros to whole blocks.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

BLOCK = 16
E2M1_GRID = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def tensor_scale(hp: torch.Tensor) -> torch.Tensor:
    """torchao's per_tensor_amax_to_scale, with the training kernels' rule
    for an all-zero tensor (scale 1) where the emulated cast would divide by
    zero."""
    from torchao.prototype.mx_formats.nvfp4_tensor import per_tensor_amax_to_scale

    amax = hp.abs().max().float()
    scale = per_tensor_amax_to_scale(amax)
    return torch.where(amax == 0, torch.ones_like(scale), scale)


def round_stochastic(scaled: torch.Tensor, uniform: torch.Tensor) -> torch.Tensor:
    """E2M1 values of `scaled` (in [-6, 6]) rounded up to the next grid
    value when the draw is below the distance from the one beneath."""
    a = scaled.abs()
    i = (torch.searchsorted(E2M1_GRID, a.flatten(), right=True) - 1).reshape(a.shape)
    lo = E2M1_GRID[i]
    hi = E2M1_GRID[(i + 1).clamp(max=7)]
    gap = torch.where(hi > lo, hi - lo, torch.ones_like(hi))
    q = torch.where(uniform < (a - lo) / gap, hi, lo)
    return torch.copysign(q, scaled)


def cast(hp: torch.Tensor, block: int = BLOCK, with_tensor_scale: bool = True,
         uniform: torch.Tensor | None = None):
    """(E2M1 values as float32, E4M3 block scales, tensor scale or None) of a
    2-D tensor along dim 1, a whole number of blocks."""
    from torchao.prototype.mx_formats.kernels import f4_unpacked_to_f32, unpack_uint4
    from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize

    hp = hp.contiguous()
    ts = tensor_scale(hp) if with_tensor_scale else None
    if block == BLOCK:
        scales, packed = nvfp4_quantize(hp, block, ts)
    else:  # a mistake torchao refuses: its rule on other blocks
        scales, packed = _quantize_any_block(hp, block, ts)
    data = f4_unpacked_to_f32(unpack_uint4(packed)).reshape(hp.shape)
    if uniform is not None:
        rcp = (1.0 / scales.float()) if ts is None else (1.0 / ts) / scales.float()
        blocks = hp.float().reshape(hp.shape[0], -1, block)
        scaled = torch.clamp(blocks * rcp.unsqueeze(-1), -6.0, 6.0).reshape(hp.shape)
        data = round_stochastic(scaled, uniform)
    return data, scales.reshape(hp.shape[0], -1), ts


def _quantize_any_block(hp, block, ts):
    from torchao.prototype.mx_formats.kernels import f32_to_f4_unpacked, pack_uint4
    from torchao.prototype.mx_formats.nvfp4_tensor import E4M3_EPS, F8E4M3_MAX

    blocks = hp.float().reshape(hp.shape[0], -1, block)
    bs = torch.amax(blocks.abs(), dim=-1) / 6.0
    if ts is None:
        fp8 = torch.clamp(bs, min=E4M3_EPS, max=F8E4M3_MAX).to(torch.float8_e4m3fn)
        rcp = 1.0 / fp8.float()
    else:
        fp8 = torch.clamp(bs / ts, min=E4M3_EPS, max=F8E4M3_MAX).to(torch.float8_e4m3fn)
        rcp = (1.0 / ts) / fp8.float()
    scaled = torch.clamp(blocks * rcp.unsqueeze(-1), -6.0, 6.0).reshape(hp.shape)
    return fp8, pack_uint4(f32_to_f4_unpacked(scaled))


def dequantize(data, scales, ts, dtype, block: int = BLOCK) -> torch.Tensor:
    """NVFP4Tensor.dequantize's arithmetic: values times (tensor scale times
    block scale) in float32, then the dtype."""
    s = scales.float() if ts is None else ts * scales.float()
    return (data.reshape(data.shape[0], -1, block) * s.unsqueeze(-1)).reshape(data.shape).to(dtype)


def signs(seed: int) -> torch.Tensor:
    """get_wgrad_sign_vector's rule on a seeded CPU generator."""
    draws = torch.rand(16, generator=torch.Generator().manual_seed(seed))
    return torch.where(draws >= 0.5, 1.0, -1.0)


def hadamard(hp: torch.Tensor, sign: torch.Tensor) -> torch.Tensor:
    """Each 16 values along dim 1 times torchao's RHT matrix (float32)."""
    from torchao.prototype.moe_training.nvfp4_training.hadamard_utils import get_rht_matrix

    rht = get_rht_matrix(tuple(int(s) for s in sign.tolist()), "cpu", torch.float32, 16)
    blocks = hp.float().reshape(hp.shape[0], -1, 16)
    return torch.matmul(blocks, rht).reshape(hp.shape).to(hp.dtype)


def _pad(hp: torch.Tensor, block: int) -> torch.Tensor:
    return F.pad(hp, (0, -hp.shape[1] % block)).contiguous()


class Stream:
    """A layer's Hadamard signs and rounding stream (the C++ Nvfp4Stream)."""

    def __init__(self, recipe: dict):
        self.recipe = recipe
        self.seed = recipe.get("nvfp4_seed", 0)
        self.signs = signs(self.seed)
        self.rng = torch.Generator().manual_seed(self.seed + 1)

    def gemm(self, a: torch.Tensor, b: torch.Tensor, stochastic_a: bool) -> torch.Tensor:
        block = self.recipe.get("nvfp4_block", BLOCK)
        ts_on = self.recipe.get("nvfp4_tensor_scale", True)
        u = torch.rand(a.shape, generator=self.rng) if stochastic_a else None
        da = dequantize(*cast(a, block, ts_on, u), a.dtype, block)
        db = dequantize(*cast(b, block, ts_on), b.dtype, block)
        return torch.mm(da, db.t())


class _Nvfp4Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, stream: Stream):
        ctx.save_for_backward(x, weight)
        ctx.stream = stream
        block = stream.recipe.get("nvfp4_block", BLOCK)
        return stream.gemm(_pad(x, block), _pad(weight, block), False)

    @staticmethod
    def backward(ctx, grad_out):
        x, weight = ctx.saved_tensors
        s = ctx.stream
        r = s.recipe
        if not r.get("nvfp4_fresh_stream", True):
            s.rng.manual_seed(s.seed + 1)
        block = r.get("nvfp4_block", BLOCK)
        g = grad_out.contiguous()
        grad_input = s.gemm(_pad(g, block), _pad(weight.t(), block), True)
        g_t, x_t = _pad(g.t(), block), _pad(x.t(), block)
        if r.get("nvfp4_hadamard", True):
            g_t, x_t = hadamard(g_t, s.signs), hadamard(x_t, s.signs)
        return grad_input, s.gemm(g_t, x_t, True), None


class Nvfp4Linear(torch.nn.Module):
    """A Linear's three GEMMs in NVFP4, on the wrapped Linear's own parameters."""

    def __init__(self, linear: torch.nn.Linear, recipe: dict | None = None):
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.stream = Stream(recipe or {"scaling": "nvfp4"})

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x2 = x.reshape(-1, x.shape[-1])
        out = _Nvfp4Matmul.apply(x2, self.weight, self.stream).reshape(*x.shape[:-1], self.out_features)
        return out if self.bias is None else out + self.bias.to(out.dtype)
