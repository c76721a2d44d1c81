"""Writes a case dump in the layout of harness/runner/case_dump.cpp, produced by
the Python workloads themselves: a stand-in for `ampbench run --dump` so the
checker's plumbing and exit codes are tested without the C++ binary."""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

from reference.python.bench import SyntheticData, fresh_state
from reference.python.spec import Spec
from reference.python.workloads import STEPS, apply_lr_schedule, optimizer_state_tensors


def spec_json(s: Spec) -> dict:
    return {"id": s.id, "workload": s.workload, "variant": s.variant, "model": s.model,
            "precision": s.precision, "optimizer": s.optimizer, "scaler_enabled": s.scaler_enabled,
            "steps": s.steps, "lr": s.lr, "cosine_schedule": s.cosine_schedule,
            "iters_to_accumulate": s.iters_to_accumulate, "max_norm": s.max_norm, "clip_value": s.clip_value,
            "loss_multiplier": s.loss_multiplier, "inject_inf_step": s.inject_inf_step,
            "inject_inf_optimizer": s.inject_inf_optimizer,
            "skip_steps": [list(steps) for steps in s.skip_steps], "scaler": dict(s.scaler), "sizes": dict(s.sizes),
            "device": s.device, "seed": s.seed}


def folder_name(case_id: str) -> str:
    return "".join("_" if c in "/#:" else c for c in case_id)


def json_number(v: float, legacy: bool = False):
    """A trajectory value as the C++ dump writes it: non-finite values as
    "inf", "-inf" or "nan" (or null, as dumps before that did: legacy)."""
    if math.isfinite(v):
        return v
    if legacy:
        return None
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def write_dump(root: Path, spec: Spec, poison: dict | None = None, legacy_null: bool = False) -> Path:
    """poison: {micro-batch index: value} put in the first input element of
    that micro-batch (a way to get a non-finite loss on one step)."""
    dev = torch.device("cpu")
    s = fresh_state(spec, dev)
    initial = [{k: v.detach().clone() for k, v in m.state_dict().items()} for m in s.models]
    data = SyntheticData(spec, dev)
    micro = spec.micro_batches()
    # Cloned: on the CPU host_to_device hands out the cached host tensors.
    batches = [tuple(t.clone() for t in data.host_to_device(i)) for i in range(spec.steps * micro)]
    for index, value in (poison or {}).items():
        batches[index][0].view(-1)[0] = value
    loss, scale, skipped = [], [], []
    for step in range(spec.steps):
        s.step_index = step
        apply_lr_schedule(s)
        out = STEPS[spec.workload](s, batches[step * micro:(step + 1) * micro])
        loss.append(float(out.loss.float()))
        skipped.append(bool(out.skipped))
        scale.append(float(s.scaler.get_scale()))
    folder = root / folder_name(spec.id)
    folder.mkdir(parents=True, exist_ok=True)
    for k, m in enumerate(s.models):
        torch.save(initial[k], folder / f"initial_model{k}.pt")
        torch.save({n: v.detach().clone() for n, v in m.state_dict().items()}, folder / f"final_model{k}.pt")
    torch.save([b[0] for b in batches], folder / "inputs.pt")
    torch.save([b[1] for b in batches], folder / "labels.pt")
    torch.save([t.detach().clone() for _, t in optimizer_state_tensors(s)], folder / "optimizer_state.pt")
    meta = {"spec": spec_json(spec), "models": len(s.models), "micro_batches": len(batches),
            "trajectory": {"loss": [json_number(v, legacy_null) for v in loss],
                           "scale": [json_number(v, legacy_null) for v in scale], "skipped": skipped}}
    (folder / "case.json").write_text(json.dumps(meta, indent=1))
    return folder
