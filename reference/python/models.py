"""The model families, written in Python with the parameter and buffer
names (and registration order) of harness/models/*.cpp, so a state dumped by
the C++ harness loads by name with load_state_dict.

Order matters beyond loading: the workloads inject an inf into the *first*
parameter's gradient, the gradient penalty sums per-parameter norms in
parameter order, and the dumped optimizer state is a list in parameter order.
`check_parameter_order` verifies the dump agrees.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from . import canonical

# The cnn's "in_channels" when a suite leaves it out (harness/spec/model_sizes.h).
CNN_INPUT_CHANNELS = 8


def cnn_in_channels(sizes: dict) -> int:
    return int(sizes.get("in_channels", CNN_INPUT_CHANNELS))


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
        self.conv1 = nn.Conv2d(cnn_in_channels(sizes), c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * c)
        self.head = nn.Linear(2 * c, sizes["classes"])
        # NHWC inputs (weights are converted by make_model), as models/model.cpp.
        self.channels_last = bool(sizes.get("channels_last", False))

    def forward(self, x):
        if self.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        h = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), [2, 2])
        h = F.relu(self.bn2(self.conv2(h)))
        h = F.adaptive_avg_pool2d(h, [1, 1]).flatten(1)
        return self.head(h)


def libtorch_linear(x, weight, bias):
    """torch::nn::functional::linear as LibTorch's C++ API computes it
    (torch/nn/functional/linear.h): addmm for a 2-D input, otherwise
    matmul and then `+= bias`.

    Python's F.linear is ATen's at::linear, which for a 3-D input flattens
    into one addmm.  Under autocast the two differ: autocast casts addmm's
    bias to the low-precision dtype, while the C++ path adds the float32 bias
    in place to the float16/bfloat16 matmul output (add_ is not autocast
    listed).  In float32 both give the same bits; in fp16/bf16 the roundings
    differ, so the reference uses LibTorch's formula.
    """
    if x.dim() == 2 and bias is not None:
        return torch.addmm(bias, x, weight.t())
    out = x.matmul(weight.t())
    if bias is not None:
        out += bias
    return out


def libtorch_self_attention(attn: nn.MultiheadAttention, x):
    """torch::nn::functional::detail::multi_head_attention_forward for
    self-attention without masks (torch/nn/functional/activation.h), op for
    op: one packed in-projection, q scaled before the head split, explicit
    bmm -> softmax -> dropout -> bmm, out-projection on [seq, batch, embed].

    Python's nn.MultiheadAttention computes the same function but with
    at::linear (see libtorch_linear) and, when the weights are not needed,
    scaled_dot_product_attention: other kernels, other rounding.
    """
    tgt_len, bsz, embed_dim = x.shape
    heads = attn.num_heads
    head_dim = embed_dim // heads
    scaling = 1 / math.sqrt(head_dim)
    q, k, v = libtorch_linear(x, attn.in_proj_weight, attn.in_proj_bias).chunk(3, dim=-1)
    q = q * scaling
    q = q.contiguous().view(tgt_len, bsz * heads, head_dim).transpose(0, 1)
    k = k.contiguous().view(-1, bsz * heads, head_dim).transpose(0, 1)
    v = v.contiguous().view(-1, bsz * heads, head_dim).transpose(0, 1)
    weights = torch.bmm(q, k.transpose(1, 2))
    weights = F.softmax(weights, -1)
    weights = F.dropout(weights, p=attn.dropout, training=attn.training)
    out = torch.bmm(weights, v)
    out = out.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
    out = libtorch_linear(out, attn.out_proj.weight, attn.out_proj.bias)
    # LibTorch's encoder layer asks for the weights (need_weights=true) and
    # they are averaged over the heads, then discarded: the same work here.
    weights.view(bsz, heads, tgt_len, -1).sum(1) / heads
    return out


class _EncoderLayer(nn.TransformerEncoderLayer):
    """nn.TransformerEncoderLayer's parameters (same names and order as
    torch::nn::TransformerEncoderLayer), computed as LibTorch's C++ module
    computes them (TransformerEncoderLayerImpl::forward): post-norm, ReLU."""

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        src2 = libtorch_self_attention(self.self_attn, src)
        ret = self.norm1(src + self.dropout1(src2))
        src2 = libtorch_linear(self.dropout(F.relu(libtorch_linear(ret, self.linear1.weight, self.linear1.bias))),
                               self.linear2.weight, self.linear2.bias)
        return self.norm2(ret + self.dropout2(src2))


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


def _block_linear(layer: nn.Linear, x):
    """A DecoderBlock's Linear: LibTorch's formula (libtorch_linear) for a
    plain nn.Linear; a layer an FP8 recipe swapped in (fp8_convert.py) runs
    its own forward, as the C++ Linear does once its FP8 state is attached."""
    if type(layer) is nn.Linear:
        return libtorch_linear(x, layer.weight, layer.bias)
    return layer(x)


class DecoderBlock(nn.Module):
    """Pre-LayerNorm causal self-attention through scaled_dot_product_attention
    and a GELU feed-forward (harness/models/decoder.cpp), with LibTorch's
    3-D linear (libtorch_linear)."""

    def __init__(self, sizes: dict):
        super().__init__()
        d = sizes["d_model"]
        self.heads = sizes["heads"]
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, sizes["ffn"])
        self.fc2 = nn.Linear(sizes["ffn"], d)

    def forward(self, x):
        b, s, d = x.shape
        qkv = _block_linear(self.qkv, self.ln1(x)).view(b, s, 3, self.heads, d // self.heads)
        q, k, v = (t.transpose(1, 2) for t in qkv.unbind(2))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        h = x + _block_linear(self.proj, a.transpose(1, 2).reshape(x.shape))
        ff = F.gelu(_block_linear(self.fc1, self.ln2(h)))
        return h + _block_linear(self.fc2, ff)


class Decoder(nn.Module):
    """`layers` DecoderBlocks, a final LayerNorm, the head on the last
    position (harness/models/decoder.cpp)."""

    def __init__(self, sizes: dict):
        super().__init__()
        self.blocks = nn.ModuleList(DecoderBlock(sizes) for _ in range(sizes["layers"]))
        self.ln_f = nn.LayerNorm(sizes["d_model"])
        self.head = nn.Linear(sizes["d_model"], sizes["classes"])

    def forward(self, x):  # x: [batch, seq, d_model]
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x[:, -1]))


def linear_stack(sizes: dict) -> nn.Sequential:
    """harness/models/linear_stack.cpp: Linear layers without activations,
    in_features -> hidden -> ... -> classes; with two layers of 8, PyTorch's
    own grad-scaling test model (torch.testing._internal.common_cuda
    _create_scaling_models_optimizers) is this very module."""
    n = sizes["layers"]
    dims = [sizes["in_features"]] + [sizes["hidden"]] * (n - 1) + [sizes["classes"]]
    return nn.Sequential(*(nn.Linear(dims[i], dims[i + 1]) for i in range(n)))


FAMILIES = {"mlp": Mlp, "cnn": Cnn, "transformer": Transformer, "decoder": Decoder, "linear_stack": linear_stack,
            **canonical.BUILDERS}


def make_model(family: str, sizes: dict) -> nn.Module:
    try:
        build = FAMILIES[family]
    except KeyError:
        raise ValueError(f"unknown model '{family}' (known: {', '.join(FAMILIES)})") from None
    model = build(sizes)
    if family in ("cnn", "resnet") and sizes.get("channels_last"):
        model = model.to(memory_format=torch.channels_last)
    return model


def input_shape(family: str, sizes: dict) -> list[int]:
    """One sample's shape (harness/models/model.cpp input_shape)."""
    if family in ("mlp", "linear_stack"):
        return [sizes["in_features"]]
    if family == "cnn":
        return [cnn_in_channels(sizes), sizes["image"], sizes["image"]]
    if family in ("transformer", "decoder"):
        return [sizes["seq"], sizes["d_model"]]
    return canonical.input_shape(family, sizes)


def training_loss(out: torch.Tensor, labels: torch.Tensor, loss: dict | None = None) -> torch.Tensor:
    """harness/models/model.cpp training_loss: cross-entropy per sample, or
    per position for next-token logits [batch, seq, vocab] (transformers'
    causal-LM loss flattens them the same way); MSE or BCE-with-logits
    against float targets of the output's shape."""
    kind = (loss or {}).get("kind", "cross_entropy")
    if kind == "mse":
        return F.mse_loss(out, labels)
    if kind == "bce_with_logits":
        return F.binary_cross_entropy_with_logits(out, labels)
    smoothing = float((loss or {}).get("label_smoothing", 0.0))
    if out.dim() == 3:
        return F.cross_entropy(out.flatten(0, 1), labels.flatten(), label_smoothing=smoothing)
    return F.cross_entropy(out, labels, label_smoothing=smoothing)


def training_flops_per_sample(family: str, sizes: dict) -> float:
    """harness/models/flops.cpp: 3 x the forward pass's matrix-unit FLOPs
    (2 per multiply-add; elementwise work, norms and the optimizer left out)."""
    def linear(i, o):
        return 2.0 * i * o

    def conv3x3(ci, co, side):
        return 2.0 * ci * co * 9.0 * side * side

    s = sizes
    if family == "mlp":
        fwd = linear(s["in_features"], s["hidden"]) + linear(s["hidden"], s["hidden"]) + linear(s["hidden"], s["classes"])
    elif family == "cnn":
        c = s["channels"]
        fwd = conv3x3(cnn_in_channels(s), c, s["image"]) + conv3x3(c, 2 * c, s["image"] // 2) + linear(2 * c, s["classes"])
    elif family in ("transformer", "decoder"):
        seq, d = s["seq"], s["d_model"]
        blocks = s["layers"] if family == "decoder" else 1
        fwd = blocks * (seq * (linear(d, 3 * d) + linear(d, d)) + 2.0 * (2.0 * seq * seq * d)
                        + seq * (linear(d, s["ffn"]) + linear(s["ffn"], d))) + linear(d, s["classes"])
    elif family == "linear_stack":
        dims = [s["in_features"]] + [s["hidden"]] * (s["layers"] - 1) + [s["classes"]]
        fwd = sum(linear(dims[i], dims[i + 1]) for i in range(s["layers"]))
    elif family in canonical.BUILDERS:
        fwd = canonical.forward_flops(family, s)
    else:
        raise ValueError(f"unknown model {family!r}")
    return 3.0 * fwd


def check_parameter_order(model: nn.Module, dumped_names: list[str]) -> str | None:
    """None when the dump lists this model's parameters in the model's own
    order, else a one-line explanation."""
    buffers = {name for name, _ in model.named_buffers()}
    dumped = [n for n in dumped_names if n not in buffers]
    ours = [name for name, _ in model.named_parameters()]
    if dumped != ours:
        return f"parameter order differs: dump {dumped}, Python model {ours}"
    return None
