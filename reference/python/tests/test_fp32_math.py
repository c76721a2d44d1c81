"""reference.python.fp32_math: the Python runs use IEEE float32 like the C++
cases, and leave torch's flags as they found them."""

from __future__ import annotations

import torch

from reference.python.fp32_math import ieee_fp32


def test_ieee_fp32_turns_tf32_off_and_restores_the_defaults():
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    assert before[1] is True  # torch 2.11: cuDNN convolutions in TF32 by default
    with ieee_fp32():
        assert torch.backends.cuda.matmul.allow_tf32 is False
        assert torch.backends.cudnn.allow_tf32 is False
        assert torch.backends.cudnn.conv.fp32_precision != "tf32"
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before
    assert torch.backends.cudnn.conv.fp32_precision == "tf32"
