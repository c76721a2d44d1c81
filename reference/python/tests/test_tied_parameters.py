"""A tensor reachable under several names is one parameter: the C++ dump
holds it once, under its first name, and the oracle loads it under every
name (reference/python/replay.py with_aliases)."""

from __future__ import annotations

import torch
from torch import nn

from reference.python.replay import with_aliases


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight


def test_the_other_names_of_a_tied_tensor_are_filled_from_its_first():
    model = Tied()
    dumped = {"embed.weight": torch.randn(10, 4)}
    assert [n for n, _ in model.named_parameters()] == ["embed.weight"]
    full = with_aliases(model, dumped)
    assert set(full) == {"embed.weight", "head.weight"}
    model.load_state_dict(full, strict=True)
    assert torch.equal(model.head.weight, dumped["embed.weight"])
    assert model.head.weight is model.embed.weight


def test_a_name_missing_from_the_dump_stays_missing():
    model = nn.Linear(3, 2)
    full = with_aliases(model, {"weight": torch.zeros(2, 3)})
    assert set(full) == {"weight"}, "only aliases are filled in, never a tensor the dump lacks"
