"""Float32 math as the C++ harness runs every case (harness/amp/float32_math.h,
Float32MathGuard): IEEE float32 for CUDA matmuls and cuDNN convolutions/RNNs.
torch 2.11 runs cuDNN in TF32 by default, so without this a Python fp32 run on
a GPU would not be the C++ run's fp32. Set through the legacy flags, whose
setters keep torch's two float32-precision APIs consistent, and restored after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch


@contextlib.contextmanager
def ieee_fp32() -> Iterator[None]:
    previous = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = previous
