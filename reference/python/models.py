"""The three model families, written in Python with the parameter and buffer
names (and registration order) of harness/models/*.cpp, so a state dumped by
the C++ harness loads by name with load_state_dict.

Order matters beyond loading: the workloads inject an inf into the *first*
parameter's gradient, the gradient penalty sums per-parameter norms in
parameter order, and the dumped optimizer state is a list in parameter order.
`check_parameter_order` verifies the dump agrees.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

CNN_INPUT_CHANNELS = 8  # harness/models/cnn.h kCnnInputChannels


class Mlp(nn.Module):
    """fc1 -> relu -> fc2 -> relu -> head (harness/models/mlp.cpp)."""

    def __init__(self, sizes: dict):
        super().__init__()
        self.fc1 = nn.Linear(sizes["in_features"], sizes["hidden"])
        self.fc2 = nn.Linear(sizes["hidden"], sizes["hidden"])
        self.head = nn.Linear(sizes["hidden"], sizes["classes"])

    def forward(self, x):
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


class Cnn(nn.Module):
    """conv1/bn1/relu/maxpool, conv2/bn2/relu, global average pool, head
    (harness/models/cnn.cpp)."""

    def __init__(self, sizes: dict):
        super().__init__()
        c = sizes["channels"]
        self.conv1 = nn.Conv2d(CNN_INPUT_CHANNELS, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * c)
        self.head = nn.Linear(2 * c, sizes["classes"])

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), [2, 2])
        h = F.relu(self.bn2(self.conv2(h)))
        h = F.adaptive_avg_pool2d(h, [1, 1]).flatten(1)
        return self.head(h)


class _EncoderLayer(nn.TransformerEncoderLayer):
    """nn.TransformerEncoderLayer whose self-attention takes the explicit
    bmm -> softmax -> bmm path.

    LibTorch's MultiheadAttention (torch/nn/functional/activation.h) always
    materializes the attention weights that way.  Python's layer asks for
    need_weights=False, which routes to scaled_dot_product_attention: the same
    mathematics with a different kernel, hence different rounding (and under
    autocast a different precision for the softmax).  need_weights=True with
    average_attn_weights=False runs LibTorch's arithmetic without the
    head-averaging it would otherwise add.
    """

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=True, average_attn_weights=False)[0]
        return self.dropout1(x)


class Transformer(nn.Module):
    """One encoder block on [seq, batch, d_model], mean over the sequence,
    linear head (harness/models/transformer.cpp)."""

    def __init__(self, sizes: dict):
        super().__init__()
        self.block = _EncoderLayer(sizes["d_model"], sizes["heads"], dim_feedforward=sizes["ffn"],
                                   dropout=0.0)
        self.head = nn.Linear(sizes["d_model"], sizes["classes"])

    def forward(self, x):  # x: [batch, seq, d_model]
        h = self.block(x.transpose(0, 1))
        return self.head(h.mean(0))


FAMILIES = {"mlp": Mlp, "cnn": Cnn, "transformer": Transformer}


def make_model(family: str, sizes: dict) -> nn.Module:
    try:
        cls = FAMILIES[family]
    except KeyError:
        raise ValueError(f"unknown model '{family}' (known: {', '.join(FAMILIES)})") from None
    return cls(sizes)


def input_shape(family: str, sizes: dict) -> list[int]:
    """One sample's shape (harness/models/model.cpp input_shape)."""
    if family == "mlp":
        return [sizes["in_features"]]
    if family == "cnn":
        return [CNN_INPUT_CHANNELS, sizes["image"], sizes["image"]]
    if family == "transformer":
        return [sizes["seq"], sizes["d_model"]]
    raise ValueError(f"unknown model '{family}'")


def check_parameter_order(model: nn.Module, dumped_names: list[str]) -> str | None:
    """None when the dump lists this model's parameters in the model's own
    order, else a one-line explanation."""
    buffers = {name for name, _ in model.named_buffers()}
    dumped = [n for n in dumped_names if n not in buffers]
    ours = [name for name, _ in model.named_parameters()]
    if dumped != ours:
        return f"parameter order differs: dump {dumped}, Python model {ours}"
    return None
