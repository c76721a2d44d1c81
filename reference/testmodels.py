"""Small user-style models for the bring-your-own-model tests
(reference/python/tests/run_scripted_models.sh exports each with
`python -m reference.export` and runs it through the matrix): layers the
registered families do not have, written as a user would write them."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class TokenAttention(nn.Module):
    """Token and position embeddings, LayerNorm with BERT's eps 1e-12,
    torch.nn.MultiheadAttention with a key padding mask (id 0 is padding),
    masked mean pooling and a classifier."""

    def __init__(self, vocab: int = 100, seq: int = 12, d_model: int = 32, heads: int = 4, classes: int = 6):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.position = nn.Parameter(torch.randn(seq, d_model) * 0.02)
        self.norm = nn.LayerNorm(d_model, eps=1e-12)
        self.attn = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.head = nn.Linear(d_model, classes)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        pad = ids == 0
        h = self.norm(self.embed(ids) + self.position)
        a, _ = self.attn(h, h, h, key_padding_mask=pad, need_weights=False)
        h = h + a
        keep = (~pad).unsqueeze(-1).to(h.dtype)
        pooled = (h * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled)


class TwoInputs(nn.Module):
    """An image through a small convolution and a feature vector through a
    Linear layer, joined before the classifier: forward(image, features)."""

    def __init__(self, channels: int = 3, features: int = 10, classes: int = 5):
        super().__init__()
        self.conv = nn.Conv2d(channels, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(features, 16)
        self.head = nn.Linear(8 + 16, classes)

    def forward(self, image: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        x = F.adaptive_avg_pool2d(F.relu(self.bn(self.conv(image))), 1).flatten(1)
        return self.head(torch.cat([x, F.relu(self.fc(features))], dim=1))
