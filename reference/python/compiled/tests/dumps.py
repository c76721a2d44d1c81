"""Case dumps for the compiled module's tests: the Python workloads' own run
written in the C++ dump's layout (tests/dumpmaker.py), a tied weight held
once under its first name as the C++ dump holds it (GPT-2's lm_head.weight
is transformer.wte.weight)."""

from __future__ import annotations

from pathlib import Path

import torch

from reference.python import models as M
from reference.python.spec import DEFAULT_SIZES, Spec
from reference.python.tests.dumpmaker import write_dump

# The smoke suite's sizes (suites/smoke.json) and tinier ones for the tests.
SMOKE = {"mlp": {"batch": 32, "in_features": 32, "hidden": 64, "classes": 8},
         "transformer": {"batch": 16, "seq": 8, "d_model": 32, "heads": 4, "ffn": 64, "classes": 8},
         "gpt2": {"batch": 8, "seq": 16, "d_model": 32, "heads": 4, "ffn": 64, "layers": 2, "vocab": 128},
         "cnn": {"batch": 16, "channels": 8, "image": 8, "classes": 8}}
TINY = {"mlp": {"batch": 8, "in_features": 8, "hidden": 16, "classes": 4},
        "transformer": {"batch": 4, "seq": 4, "d_model": 16, "heads": 2, "ffn": 32, "classes": 4},
        "gpt2": {"batch": 2, "seq": 8, "d_model": 16, "heads": 2, "ffn": 32, "layers": 1, "vocab": 32},
        "cnn": {"batch": 4, "channels": 4, "image": 8, "classes": 4}}


def spec(model: str, precision: str, workload: str = "plain", optimizer: str = "sgd", steps: int = 4,
         sizes: dict | None = None, **kw) -> Spec:
    full = dict(DEFAULT_SIZES)
    full.update(sizes or TINY[model])
    lr = 0.003 if optimizer == "adamw" else 0.05
    return Spec(id=f"{workload}/{model}/{precision}/{optimizer}", workload=workload, model=model,
                precision=precision, optimizer=optimizer, lr=lr, steps=steps, sizes=full,
                scaler_enabled=precision == "fp16", **kw)


def _as_cpp(folder: Path, s: Spec) -> None:
    """Each model state keeps the names the C++ dump writes: the parameters
    (a tied one once) and the buffers."""
    model = M.make_model(s.model, s.sizes)
    keep = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
    for k in range(s.model_count()):
        for kind in ("initial", "final"):
            path = folder / f"{kind}_model{k}.pt"
            state = torch.load(path, weights_only=True)
            torch.save({n: state[n] for n in keep}, path)


def make(root: Path, s: Spec) -> Path:
    folder = write_dump(Path(root), s)
    _as_cpp(folder, s)
    return folder
