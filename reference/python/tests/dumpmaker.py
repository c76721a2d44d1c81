"""Writes a case dump in the layout of harness/dump/case_dump.cpp, produced by
the Python workloads themselves: a stand-in for `ampbench run --dump` so the
checker's plumbing and exit codes are tested without the C++ binary."""

from __future__ import annotations

import json
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
            "skip_steps": [list(steps) for steps in s.skip_steps], "scaler": dict(s.scaler), "sizes": dict(s.sizes),
            "device": s.device, "seed": s.seed}


def folder_name(case_id: str) -> str:
    return "".join("_" if c in "/#:" else c for c in case_id)


def write_dump(root: Path, spec: Spec) -> Path:
    dev = torch.device("cpu")
    s = fresh_state(spec, dev)
    initial = [{k: v.detach().clone() for k, v in m.state_dict().items()} for m in s.models]
    data = SyntheticData(spec, dev)
    micro = spec.micro_batches()
    batches = [data.host_to_device(i) for i in range(spec.steps * micro)]
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
            "trajectory": {"loss": loss, "scale": scale, "skipped": skipped}}
    (folder / "case.json").write_text(json.dumps(meta, indent=1))
    return folder
