"""LibTorch's Adam/AdamW rounding (libtorch_adam.py) is torch.optim's
algorithm: within a few ulps of torch.optim's single-tensor Adam and AdamW on
every setting, and not bit for bit (else the replica would be pointless).
That it is LibTorch's own rounding is shown end to end: the cross-check
replays the C++ loop cases with it bit for bit (docs/architectures.md)."""

from __future__ import annotations

import pytest
import torch

from reference.python.libtorch_adam import LibTorchAdam

SETTINGS = [
    ("adamw", {}),
    ("adamw", {"weight_decay": 0.1, "amsgrad": True}),
    ("adamw", {"betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.0}),
    ("adam", {}),
    ("adam", {"weight_decay": 0.05}),
    ("adam", {"weight_decay": 0.05, "amsgrad": True}),
]
ULPS = 4   # measured: parameters 0.15, exp_avg 2.2 (the moment torch.optim lerps)


def _train(make, steps=12):
    gen = torch.Generator().manual_seed(0)
    p = torch.randn(256, generator=gen).requires_grad_()
    opt = make([p])
    for _ in range(steps):
        p.grad = torch.randn(256, generator=gen)
        opt.step()
    return p.detach(), opt.state[p]


def _ulps(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest difference in float32 ulps of the tensor's largest element (a
    moment's running sum cancels to near zero here and there, where a
    relative figure would say nothing about the rounding)."""
    scale = torch.finfo(torch.float32).eps * float(b.double().abs().max())
    return float((a.double() - b.double()).abs().max()) / scale


@pytest.mark.parametrize("kind,settings", SETTINGS)
def test_the_replica_is_torch_optims_algorithm_to_a_few_ulps(kind, settings):
    torch_class = torch.optim.AdamW if kind == "adamw" else torch.optim.Adam
    kwargs = {"weight_decay": 0.01 if kind == "adamw" else 0.0, **settings}
    mine, my_state = _train(lambda ps: LibTorchAdam(ps, lr=0.003, decoupled=kind == "adamw", **kwargs))
    theirs, their_state = _train(lambda ps: torch_class(ps, lr=0.003, foreach=False, **kwargs))
    assert _ulps(mine, theirs) <= ULPS
    assert sorted(my_state) == sorted(their_state)
    for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        if key in their_state:
            assert _ulps(my_state[key], their_state[key]) <= ULPS, key


def test_the_rounding_is_libtorchs_not_torch_optims():
    mine, _ = _train(lambda ps: LibTorchAdam(ps, lr=0.003, weight_decay=0.01, decoupled=True))
    theirs, _ = _train(lambda ps: torch.optim.AdamW(ps, lr=0.003, foreach=False))
    assert not torch.equal(mine, theirs)


def test_decoupled_decay_is_not_l2():
    adamw, _ = _train(lambda ps: LibTorchAdam(ps, lr=0.003, weight_decay=0.1, decoupled=True))
    adam, _ = _train(lambda ps: LibTorchAdam(ps, lr=0.003, weight_decay=0.1, decoupled=False))
    assert _ulps(adamw, adam) > 1000
