"""The FP8 recipes on a Python module, for the oracle: the same choice of
Linear layers as the C++ conversion plan (harness/fp8/conversion.h: both
dimensions divisible by 16, the first and the last Linear in registration
order only when asked), each chosen layer swapped for torchao's
Float8Linear (tensorwise, rowwise), for fp8_delayed.DelayedScalingLinear
(delayed), for mx_linear.MxLinear (mxfp8: torchao's emulated MXFP8
path) or for blockwise_linear.BlockwiseLinear (blockwise, whose 128-wide
tiles need both dimensions divisible by 128), the others left as they are.

The rowwise recipe's output GEMM runs without fast accumulation, as the C++
recipe runs it (the CPU's scaled matmul takes per-tensor scales only:
docs/fp8.md).
"""

from __future__ import annotations

import dataclasses

import torch

from reference.python.fp8_delayed import DelayedScalingLinear

ALIGNMENT = 16


@dataclasses.dataclass
class LinearChoice:
    name: str
    in_features: int
    out_features: int
    converted: bool
    reason: str  # empty when converted


BLOCKWISE_ALIGNMENT = 128


def _misalignment(c: LinearChoice, alignment: int = ALIGNMENT) -> str:
    parts = [f"{k} {v}" for k, v in (("in_features", c.in_features), ("out_features", c.out_features))
             if v % alignment]
    return " and ".join(parts) + f" not divisible by {alignment}" if parts else ""


# harness/models/vit.cpp's own-precision reason for the same layer.
ATTENTION_OUT_PROJ = ("read by weight in the attention (torch.nn.MultiheadAttention's out_proj), "
                      "which an FP8 swap does not reach")


def _attention_out_projs(module: torch.nn.Module) -> set[str]:
    """Names of every nn.MultiheadAttention's out_proj: the attention passes
    its weight to F.multi_head_attention_forward, so a swapped module never
    runs, and the C++ plan (models/linear.cpp's plan_fp8) leaves it out. It
    must not take a converted layer's place in the order, which seeds each
    NVFP4 layer's stream."""
    return {f"{name}.out_proj" if name else "out_proj"
            for name, m in module.named_modules() if isinstance(m, torch.nn.MultiheadAttention)}


def plan_conversion(module: torch.nn.Module, convert_first: bool = False, convert_last: bool = False,
                    alignment: int = ALIGNMENT) -> list[LinearChoice]:
    plan = [LinearChoice(name, m.in_features, m.out_features, False, "")
            for name, m in module.named_modules() if isinstance(m, torch.nn.Linear)]
    out_projs = _attention_out_projs(module)
    for i, c in enumerate(plan):
        c.reason = _misalignment(c, alignment)
        if not c.reason and i == 0 and not convert_first:
            c.reason = "the first Linear (convert_first off)"
        if not c.reason and i == len(plan) - 1 and not convert_last:
            c.reason = "the last Linear (convert_last off)"
        if not c.reason and c.name in out_projs:
            c.reason = ATTENTION_OUT_PROJ
        c.converted = not c.reason
    return plan


def fp8_linear(linear: torch.nn.Linear, recipe: dict) -> torch.nn.Module:
    """One Linear under `recipe` ({"scaling": ..., "history_len", "margin",
    "amax_compute"}), sharing its parameters."""
    scaling = recipe["scaling"]
    if scaling == "mxfp8":
        from reference.python.mx_linear import MxLinear

        return MxLinear(linear, recipe.get("mx_scale_mode", "floor"))
    if scaling == "blockwise":
        from reference.python.blockwise_linear import BlockwiseLinear

        return BlockwiseLinear(linear)
    if scaling == "nvfp4":
        from reference.python.nvfp4_linear import Nvfp4Linear

        return Nvfp4Linear(linear, recipe)
    if scaling == "delayed":
        return DelayedScalingLinear(linear, recipe.get("history_len", 16), recipe.get("margin", 0),
                                    recipe.get("amax_compute", "max"))
    from torchao.float8.config import Float8GemmConfig, Float8LinearConfig
    from torchao.float8.float8_linear import Float8Linear

    if scaling not in ("tensorwise", "rowwise"):
        raise ValueError(f"unknown fp8 recipe {scaling!r} (tensorwise, rowwise, delayed, mxfp8, nvfp4, blockwise)")
    config = Float8LinearConfig.from_recipe_name(scaling)
    if scaling == "rowwise":
        config = dataclasses.replace(config, gemm_config_output=Float8GemmConfig(use_fast_accum=False))
    return Float8Linear.from_float(linear, config)


def convert(module: torch.nn.Module, recipe: dict, convert_first: bool = False,
            convert_last: bool = False) -> list[LinearChoice]:
    """Swaps the planned Linear layers of `module` in place; returns the plan."""
    alignment = BLOCKWISE_ALIGNMENT if recipe["scaling"] == "blockwise" else ALIGNMENT
    plan = plan_conversion(module, convert_first, convert_last, alignment)
    for i, c in enumerate([c for c in plan if c.converted]):
        parent_name, _, child = c.name.rpartition(".")
        parent = module.get_submodule(parent_name) if parent_name else module
        # NVFP4: each converted layer's stream seeded apart (harness/models/linear.cpp's attach_fp8)
        layer_recipe = {**recipe, "nvfp4_seed": recipe.get("nvfp4_seed", 0) + i} if recipe["scaling"] == "nvfp4" \
            else recipe
        setattr(parent, child, fp8_linear(getattr(parent, child), layer_recipe))
    return plan
