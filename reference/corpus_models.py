"""Public models at small sizes for the corpus (reference/corpus.py): the
transformers architectures built from their configs (no weights, no
tokenizer: nothing is downloaded), every other setting the config's default,
dropout included. Each returns a module whose forward takes token ids and
returns one tensor, the logits, which is what `python -m reference.export`
and a suite entry need; transformers' own modules return output objects.

The size is the only thing changed from each config's defaults: 2 layers,
width 32, 4 heads, a vocabulary of 100."""

from __future__ import annotations

import torch
from torch import nn

SMALL = {"vocab_size": 100}


class Logits(nn.Module):
    """model(input_ids=ids) -> its logits (or, for an encoder without a
    head, a linear head over the mean of its last hidden state)."""

    def __init__(self, model: nn.Module, head: nn.Module | None = None):
        super().__init__()
        self.model = model
        self.head = head

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        out = self.model(input_ids=ids, return_dict=False)[0]
        return out if self.head is None else self.head(out.mean(1))


def gpt2(classes: int = 0) -> nn.Module:
    """GPT2LMHeadModel: its lm_head tied to the token embedding."""
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(n_layer=2, n_embd=32, n_head=4, n_positions=64, **SMALL)
    return Logits(GPT2LMHeadModel(config))


def bert(classes: int = 6) -> nn.Module:
    from transformers import BertConfig, BertForSequenceClassification
    config = BertConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, intermediate_size=64,
                        max_position_embeddings=64, num_labels=classes, **SMALL)
    return Logits(BertForSequenceClassification(config))


def distilbert(classes: int = 6) -> nn.Module:
    from transformers import DistilBertConfig, DistilBertForSequenceClassification
    config = DistilBertConfig(n_layers=2, dim=32, n_heads=4, hidden_dim=64, max_position_embeddings=64,
                              num_labels=classes, **SMALL)
    return Logits(DistilBertForSequenceClassification(config))


def t5_encoder(classes: int = 6) -> nn.Module:
    """T5's encoder (relative position buckets, RMS LayerNorm without a
    bias) under a linear head over the mean token."""
    from transformers import T5Config, T5EncoderModel
    config = T5Config(num_layers=2, d_model=32, d_kv=8, num_heads=4, d_ff=64, **SMALL)
    return Logits(T5EncoderModel(config), nn.Linear(32, classes))


def llama(classes: int = 0) -> nn.Module:
    """A Llama-style decoder: RMSNorm, rotary positions, SwiGLU,
    grouped-query attention (2 key/value heads for 4 query heads)."""
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, num_key_value_heads=2,
                         intermediate_size=64, max_position_embeddings=64, **SMALL)
    return Logits(LlamaForCausalLM(config))
