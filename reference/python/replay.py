"""Read one case of `ampbench run --dump DIR` and replay it with the Python
workloads.

Dump layout (harness/runner/case_dump.cpp), one folder per case:
  case.json              {"spec": {...}, "models": n, "micro_batches": m,
                          "trajectory": {"loss": [...], "scale": [...], "skipped": [...]}}
                         (a non-finite loss or scale as "inf", "-inf" or "nan";
                         older dumps wrote null)
  initial_model<k>.pt    dict name -> tensor (parameters, then buffers)
  final_model<k>.pt      same, after training
  inputs.pt, labels.pt   lists of tensors, one per micro-batch, in order
  optimizer_state.pt     list: SGD momentum buffers, or AdamW exp_avg,
                         exp_avg_sq, per parameter in parameter order
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.jit._pickle  # noqa: F401 - restore_type_tag, allowed below

from .bounded_json import JsonInputError, read_bounded_json
from . import models as M
from . import scripted, user_module
from .spec import Spec, SpecError, spec_from_dump
from .workloads import STEPS, TrainingState, apply_lr_schedule, make_scaler, optimizer_state_tensors


class DumpError(Exception):
    """A dump folder that cannot be used (exit 2)."""

    def __init__(self, where, reason: str):
        self.where = str(where)
        self.reason = " ".join(str(reason).split())  # one line: logs are grepped
        super().__init__(f"{self.where}: {self.reason}")


@dataclass
class Run:
    """What one run (C++ dump or Python replay) produced."""
    loss: list            # per optimizer step (float; inf/-inf/nan as dumped, null read as nan)
    scale: list
    skipped: list
    initial: list         # per model: {name: tensor}
    final: list           # per model: {name: tensor}
    optimizer_state: list  # [(name, tensor)]; C++ names are positional
    extra: dict = field(default_factory=dict)


@dataclass
class CaseDump:
    folder: Path
    spec: Spec
    cpp: Run
    inputs: list
    labels: list


_PICKLE_SAVE_GLOBALS = [torch.jit._pickle.restore_type_tag, torch.jit._pickle.build_tensorlist]


def torch_load(path):
    """torch.load, weights only, of a file written by torch::pickle_save or
    torch.save."""
    with torch.serialization.safe_globals(_PICKLE_SAVE_GLOBALS):
        return torch.load(path, map_location="cpu", weights_only=True)


def _load(path: Path):
    if not path.is_file():
        raise DumpError(path, "missing dump file")
    try:
        # torch::pickle_save writes a Dict[str, Tensor] with
        # torch.jit._pickle.restore_type_tag and a List[Tensor] with
        # torch.jit._pickle.build_tensorlist, which the weights-only
        # unpickler refuses unless allowed.  They only rebuild the container
        # and re-attach its static type, so allowing exactly these two keeps
        # the load weights-only.
        return torch_load(path)
    except Exception as e:  # noqa: BLE001 - any unreadable file is unusable input
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        why = next((ln for ln in lines if "Unpickler error" in ln), lines[0] if lines else "")
        raise DumpError(path, f"torch.load failed: {type(e).__name__}: {why[:300]}") from None


def _tensor_dict(path: Path) -> dict:
    obj = _load(path)
    if not isinstance(obj, dict) or not all(isinstance(v, torch.Tensor) for v in obj.values()):
        raise DumpError(path, "expected a dict of name -> tensor")
    return dict(obj)


def _tensor_list(path: Path) -> list:
    obj = _load(path)
    if not isinstance(obj, (list, tuple)) or not all(isinstance(v, torch.Tensor) for v in obj):
        raise DumpError(path, "expected a list of tensors")
    return list(obj)


def _series(traj: dict, key: str, where: Path) -> list:
    values = traj.get(key)
    if not isinstance(values, list):
        raise DumpError(where, f"trajectory.{key} is missing or not a list")
    return values


# JSON has no inf or NaN: the C++ dump writes a non-finite value as one of
# these strings, so that an overflow (inf) stays distinguishable from a NaN.
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _number_series(traj: dict, key: str, where: Path) -> list:
    """trajectory.loss / trajectory.scale as floats.  Older dumps wrote a
    non-finite value as null, which is read as NaN: the sign and kind of the
    value are lost there, so such a dump cannot show an inf agreeing."""
    out = []
    for i, v in enumerate(_series(traj, key, where)):
        if v is None:
            out.append(math.nan)
        elif isinstance(v, str):
            if v not in _NON_FINITE:
                raise DumpError(where, f"trajectory.{key}[{i}]: unknown string {json.dumps(v)[:40]} "
                                       f"(a non-finite value is written \"inf\", \"-inf\" or \"nan\")")
            out.append(_NON_FINITE[v])
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(float(v))
        else:
            raise DumpError(where, f"trajectory.{key}[{i}]: expected a number, got {json.dumps(v)[:40]}")
    return out


def load_case(folder: Path) -> CaseDump:
    folder = Path(folder)
    meta_path = folder / "case.json"
    if not meta_path.is_file():
        raise DumpError(folder, "no case.json (not an ampbench dump folder)")
    try:
        meta = read_bounded_json(meta_path)
    except JsonInputError as e:
        raise DumpError(meta_path, e.reason) from None
    if not isinstance(meta, dict):
        raise DumpError(meta_path, "expected an object")
    try:
        spec = spec_from_dump(meta.get("spec"))
    except SpecError as e:
        raise DumpError(meta_path, str(e)) from None
    traj = meta.get("trajectory")
    if not isinstance(traj, dict):
        raise DumpError(meta_path, "trajectory is missing")
    loss = _number_series(traj, "loss", meta_path)
    scale = _number_series(traj, "scale", meta_path)
    skipped = _series(traj, "skipped", meta_path)
    for key, values in (("loss", loss), ("scale", scale), ("skipped", skipped)):
        if len(values) != spec.steps:
            raise DumpError(meta_path, f"trajectory.{key} has {len(values)} entries for {spec.steps} steps")

    n_models = spec.model_count()
    initial = [_tensor_dict(folder / f"initial_model{k}.pt") for k in range(n_models)]
    final = [_tensor_dict(folder / f"final_model{k}.pt") for k in range(n_models)]
    inputs = _tensor_list(folder / "inputs.pt")
    labels = _tensor_list(folder / "labels.pt")
    need = spec.steps * spec.micro_batches()
    if len(inputs) != need or len(labels) != need:
        raise DumpError(folder, f"{len(inputs)} input and {len(labels)} label batches; "
                                f"{spec.steps} steps x {spec.micro_batches()} micro-batches need {need}")
    opt_state = _tensor_list(folder / "optimizer_state.pt")
    cpp = Run(loss=loss, scale=scale, skipped=[bool(v) for v in skipped], initial=initial, final=final,
              optimizer_state=[(f"optimizer_state[{i}]", t) for i, t in enumerate(opt_state)])
    return CaseDump(folder=folder, spec=spec, cpp=cpp, inputs=inputs, labels=labels)


def with_aliases(model: torch.nn.Module, state: dict) -> dict:
    """`state` with every other name of a tensor it holds once: the C++ dump
    holds a tensor reachable under several names (GPT-2's lm_head.weight is
    its wte.weight) once, under its first name in named_parameters order,
    while a module's state_dict lists it under each name."""
    first, out = {}, dict(state)
    for name, t in model.state_dict(keep_vars=True).items():
        owner = first.setdefault(id(t), name)
        if name not in out and owner in out:
            out[name] = out[owner]
    return out


def build_models(spec: Spec, initial: list, device: torch.device, where="", from_module: bool = False) -> list:
    """Python models holding the dumped initial state (loaded by name).  A
    model given by file is that file (what C++ trained), or with from_module
    the Python module the file was made from (what torch.compile can
    compile)."""
    out = []
    for k, state in enumerate(initial):
        model = new_model(spec, from_module, where)
        problem = M.check_parameter_order(model, list(state.keys()))
        if problem:
            raise DumpError(where, f"initial_model{k}.pt: {problem}")
        try:
            model.load_state_dict(with_aliases(model, state), strict=True)
        except RuntimeError as e:
            raise DumpError(where, f"initial_model{k}.pt does not load into the Python {spec.model}: "
                                   + " ".join(str(e).split())) from None
        model.to(device).train()
        out.append(model)
    return out


def new_model(spec: Spec, from_module: bool, where="") -> torch.nn.Module:
    """A fresh, untrained model of the case (see build_models)."""
    if not spec.torchscript:
        return M.make_model(spec.model, spec.sizes)
    if not from_module:
        return scripted.load(spec.torchscript)
    python = spec.torchscript.get("python")
    if not python:
        raise DumpError(where, f"{spec.torchscript['path']}: the suite names no Python module it was made from")
    try:
        return user_module.make(python["factory"], python.get("kwargs", {}))
    except user_module.ModuleError as e:
        raise DumpError(where, str(e)) from None


def replay(case: CaseDump, device: str = "cpu", prepare=None, on_state=None, on_step=None,
           from_module: bool = False) -> Run:
    """Trains the case's steps on the dumped batches from the dumped initial
    state; returns the Python run.  prepare(models), when given, runs before
    training (nograd.coupling registers gradient hooks with it); on_state(s)
    runs once the TrainingState exists, on_step(s, step) after each step
    (reference/python/compiled compiles and times through them).  The run's
    extra["optimizer_skipped"] is [step][optimizer]: which optimizer skipped,
    as the C++ CaseRecord.optimizer_skipped."""
    spec = case.spec
    dev = torch.device(device)
    models = build_models(spec, case.cpp.initial, dev, case.folder, from_module)
    if prepare is not None:
        prepare(models)
    s = TrainingState(spec, models, dev)
    s.replays_masks = True  # the C++ recorded run's dropout masks (forward_rng.py)
    if on_state is not None:
        on_state(s)
    step_fn = STEPS[spec.workload]
    micro = spec.micro_batches()
    batches = [(x.to(dev), y.to(dev)) for x, y in zip(case.inputs, case.labels)]
    loss, scale, skipped, optimizer_skipped = [], [], [], []
    for step in range(spec.steps):
        if step == spec.resume_at and spec.variant == "resume_without_scaler_state":
            # C++ restores everything from its checkpoint but the scaler, which
            # starts again from init_scale (the control); a correct resume is
            # bitwise the uninterrupted run, which this loop is.
            s.scaler = make_scaler(spec, dev)
        s.step_index = step
        s.optimizer_skipped = [False] * len(s.optimizers)
        apply_lr_schedule(s)
        outcome = step_fn(s, batches[step * micro:(step + 1) * micro])
        loss.append(float(outcome.loss.float().item()))
        skipped.append(bool(outcome.skipped))
        scale.append(float(s.scaler.get_scale()))
        optimizer_skipped.append(list(s.optimizer_skipped))
        if on_step is not None:
            on_step(s, step)
    final = [s.trained_state(k) for k in range(len(models))]
    opt_state = [(n, t.detach().cpu().clone()) for n, t in optimizer_state_tensors(s)]
    return Run(loss=loss, scale=scale, skipped=skipped, initial=case.cpp.initial, final=final,
               optimizer_state=opt_state, extra={"optimizer_skipped": optimizer_skipped})
