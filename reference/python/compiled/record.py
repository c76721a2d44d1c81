"""The record: what one compiled (or --eager) run of a dumped case produced,
in the C++ CaseRecord's terms, written as JSON (schema
"ampbench.compiled_record", version 1; docs/compiled.md has the contract).

Flattening is runner.cpp's: final_params and initial_params are every
model's trained tensors (O2: the float32 masters) in parameter order
(TrainingState::parameters, a tied weight once), each flattened and cast to
float32, concatenated; optimizer_state is training_state.optimizer_state_tensors'
order (runner.cpp optimizer_state_tensors: per optimizer, per parameter, the
SGD momentum buffer or exp_avg, exp_avg_sq[, max_exp_avg_sq]).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import torch

from .. import scripted
from ..bounded_json import MAX_BYTES
from ..forward_rng import forward_seed
from ..replay import new_model
from .errors import CaseError

SCHEMA = "ampbench.compiled_record"
VERSION = 1


def flat(tensors) -> list[float]:
    """Tensors flattened to float32 and concatenated, as Python floats."""
    parts = [t.detach().to("cpu", torch.float32).reshape(-1) for t in tensors]
    return torch.cat(parts).tolist() if parts else []


def trained_params(state) -> list[float]:
    return flat(p for k in range(len(state.models)) for p in state.trained(k))


def has_batchnorm(state) -> bool:
    return any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm) for model in state.models
               for m in model.modules())


def probe_outputs(state, inputs: torch.Tensor) -> list[float]:
    """runner/probe.cpp: every model's output on `inputs` with the weights
    its optimizer trains, on a fresh float32 copy in training mode (BatchNorm
    on the probe batch's own statistics), eager, dropout seeded from
    (case seed, step -1, model index)."""
    spec, outs = state.spec, []
    call = scripted.caller(spec.torchscript)
    with torch.no_grad():
        for k in range(len(state.models)):
            fresh = new_model(spec, from_module=True).to(state.device)
            for dst, src in zip(fresh.parameters(), state.trained(k)):
                dst.copy_(src)
            fresh.train()
            torch.manual_seed(forward_seed(spec.seed, -1, k))
            outs.append(call(fresh, inputs.to(state.device)))
    return flat(outs)


def _number(v: float) -> str:
    return repr(float(v)) if math.isfinite(v) else "null"


def _float32(v: float) -> str:
    return f"{v:.9g}" if math.isfinite(v) else "null"


def _encode(value, key: str = "") -> str:
    """JSON with non-finite floats as null; the long float32 arrays with 9
    significant digits (enough to read back the same float32)."""
    import json

    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_encode(v, k)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        if key in _FLOAT32_ARRAYS:
            return "[" + ",".join(_float32(v) for v in value) + "]"
        return "[" + ",".join(_encode(v) for v in value) + "]"
    if isinstance(value, float):
        return _number(value)
    return json.dumps(value)


_FLOAT32_ARRAYS = {"initial_params", "final_params", "optimizer_state", "initial_probe", "final_probe"}


def write(path: Path, record: dict) -> None:
    """Atomically (a temporary file in the same folder, then rename): a
    reader never sees half a record, and a failed run leaves none."""
    text = _encode(record) + "\n"
    if len(text) > MAX_BYTES:
        raise CaseError(f"the record would be {len(text) >> 20} MiB, over the {MAX_BYTES >> 20} MiB a JSON "
                        "input may have (harness/io/json_file.h): the model is too large for this record")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
