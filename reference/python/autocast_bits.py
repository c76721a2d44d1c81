"""What every module of the autocast table shares: the lower-precision dtypes,
tensors' bytes and their fingerprint, an error's first line.

It imports none of them, so autocast_policy can import the modules that
build the table from PyTorch's lists (autocast_lists, autocast_values,
autocast_list_rows) and they can use these without importing it back.
"""

from __future__ import annotations

import torch

DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16}


def tensor_bytes(t: torch.Tensor) -> bytes:
    return t.detach().contiguous().cpu().reshape(-1).view(torch.uint8).numpy().tobytes()


def fnv1a64(tensors) -> str:
    """FNV-1a 64 of the tensors' bytes in order; the C++ side computes the same."""
    h = 0xCBF29CE484222325
    for t in tensors:
        for b in tensor_bytes(t):
            h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0] if lines else type(e).__name__
