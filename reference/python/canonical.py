"""The real-architecture families, built from the canonical Python modules
themselves: transformers' GPT2LMHeadModel and BertForSequenceClassification,
torchvision's ResNet and VisionTransformer, configured from a suite's
sizes.  Nothing here re-implements a layer: each class only changes the
calling convention to the harness's (one input tensor in, logits out), so
the oracle replays C++ cases on the very modules users train.

The C++ families (harness/models/gpt2.cpp, bert.cpp, ...) carry the same
parameter names and shapes, so a state dict moves between the two by name.
The configurations fix what the harness needs for deterministic equivalence:
dropout 0, no KV cache, and transformers' eager attention (the only one
whose backward is itself differentiable on CPU, which the gradient penalty
workload needs).
"""

from __future__ import annotations

import torch
from torch import nn

PAD_TOKEN_ID = 0  # BERT's pad_token_id; harness/data/synthetic_data.cpp pads with it
TOKEN_FAMILIES = ("gpt2", "bert")  # their input is token ids [batch, seq]


def _gpt2_config(sizes: dict):
    from transformers import GPT2Config

    return GPT2Config(vocab_size=sizes["vocab"], n_positions=sizes["seq"], n_embd=sizes["d_model"],
                      n_layer=sizes["layers"], n_head=sizes["heads"], n_inner=sizes["ffn"],
                      activation_function="gelu_new", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                      layer_norm_epsilon=1e-5, initializer_range=0.02, tie_word_embeddings=True,
                      use_cache=False, bos_token_id=None, eos_token_id=None, attn_implementation="eager")


def _bert_config(sizes: dict):
    from transformers import BertConfig

    return BertConfig(vocab_size=sizes["vocab"], hidden_size=sizes["d_model"], num_hidden_layers=sizes["layers"],
                      num_attention_heads=sizes["heads"], intermediate_size=sizes["ffn"], hidden_act="gelu",
                      hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                      max_position_embeddings=sizes["seq"], type_vocab_size=2, layer_norm_eps=1e-12,
                      initializer_range=0.02, pad_token_id=PAD_TOKEN_ID, num_labels=sizes["classes"],
                      attn_implementation="eager")


def gpt2(sizes: dict) -> nn.Module:
    from transformers import GPT2LMHeadModel

    class Gpt2(GPT2LMHeadModel):
        """GPT2LMHeadModel: token ids [batch, seq] -> logits [batch, seq, vocab]."""

        def forward(self, input_ids):  # noqa: D102 - the calling convention only
            return super().forward(input_ids=input_ids).logits

        def load_state_dict(self, state_dict, strict=True, assign=False):
            # The C++ module holds the tied lm_head weight once, as
            # transformer.wte.weight (the parameter the two names share here).
            state = dict(state_dict)
            state.setdefault("lm_head.weight", state["transformer.wte.weight"])
            return super().load_state_dict(state, strict=strict, assign=assign)

    return Gpt2(_gpt2_config(sizes))


def bert(sizes: dict) -> nn.Module:
    from transformers import BertForSequenceClassification

    class Bert(BertForSequenceClassification):
        """BertForSequenceClassification: token ids [batch, seq], 0 = padding
        -> logits [batch, classes], the attention mask derived from the ids."""

        def forward(self, input_ids):  # noqa: D102 - the calling convention only
            mask = (input_ids != PAD_TOKEN_ID).long()
            return super().forward(input_ids=input_ids, attention_mask=mask).logits

    return Bert(_bert_config(sizes))


# torchvision's block kind and blocks per stage for each depth (resnet18, ...;
# 10 is the smallest ResNet torchvision's class builds, for the tiny suites).
RESNET_LAYOUTS = {10: ("basic", [1, 1, 1, 1]), 18: ("basic", [2, 2, 2, 2]), 34: ("basic", [3, 4, 6, 3]),
                  50: ("bottleneck", [3, 4, 6, 3]), 101: ("bottleneck", [3, 4, 23, 3]),
                  152: ("bottleneck", [3, 8, 36, 3])}


def resnet(sizes: dict) -> nn.Module:
    from torchvision.models.resnet import BasicBlock, Bottleneck, ResNet

    kind, blocks = RESNET_LAYOUTS[sizes["depth"]]
    channels_last = bool(sizes.get("channels_last", False))

    class ResNetNhwc(ResNet):
        """torchvision's ResNet; with channels_last, NHWC inputs as the C++
        family feeds them (its weights are converted by models.make_model)."""

        def forward(self, x):  # noqa: D102 - the memory format only
            return super().forward(x.contiguous(memory_format=torch.channels_last) if channels_last else x)

    block = BasicBlock if kind == "basic" else Bottleneck
    return ResNetNhwc(block, blocks, num_classes=sizes["classes"], zero_init_residual=True)


def vit(sizes: dict) -> nn.Module:
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=sizes["image"], patch_size=sizes["patch"], num_layers=sizes["layers"],
                             num_heads=sizes["heads"], hidden_dim=sizes["d_model"], mlp_dim=sizes["ffn"],
                             dropout=0.0, attention_dropout=0.0, num_classes=sizes["classes"])


BUILDERS = {"gpt2": gpt2, "bert": bert, "resnet": resnet, "vit": vit}

# Names the canonical module's state dict has beyond the C++ module's: the
# second name of a tied weight.
EXTRA_STATE_KEYS = {"gpt2": {"lm_head.weight"}, "bert": set(), "resnet": set(), "vit": set()}


def make(family: str, sizes: dict) -> nn.Module:
    return BUILDERS[family](sizes)


def input_shape(family: str, sizes: dict) -> list[int]:
    """One sample's shape: token ids [seq] for the language models."""
    if family in TOKEN_FAMILIES:
        return [sizes["seq"]]
    if family in ("resnet", "vit"):
        return [3, sizes["image"], sizes["image"]]
    raise ValueError(f"unknown canonical family {family!r}")


def plain_state_dict(model: nn.Module) -> dict:
    """The state dict as a plain dict of contiguous tensors, which LibTorch's
    torch::pickle_load reads."""
    return {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()}



def forward_flops(family: str, sizes: dict) -> float:
    """One sample's forward FLOPs, counted by torch.utils.flop_counter on the
    canonical module (matrix-unit ops, 2 per multiply-add; the math attention
    kernel, which the counter knows on every device)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    # Training mode, as the harness runs it (in eval mode nn.MultiheadAttention
    # takes a fused path the counter does not see); two samples for BatchNorm.
    model = make(family, sizes)
    shape = [2, *input_shape(family, sizes)]
    x = torch.ones(shape, dtype=torch.long) if family in TOKEN_FAMILIES else torch.zeros(shape)
    with torch.no_grad(), sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        model(x)
    return counter.get_total_flops() / 2.0
