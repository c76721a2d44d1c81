"""Running the module in-process (one Python process shares Inductor's
start-up costs across the tests) and reading what it wrote."""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

import torch

from reference.python import models as M
from reference.python.compiled.cli import main
from reference.python.replay import CaseDump, Run


def run_module(capsys, case: Path, out: Path, *flags: str) -> tuple[int, dict | None, str]:
    """(exit status, the record or None, stderr), on one thread (the dumps'
    thread count: float32 reductions split otherwise), restored after."""
    threads = torch.get_num_threads()
    try:
        rc = main([str(case), "--out", str(out), "--threads", "1", *flags])
    finally:
        torch.set_num_threads(threads)
    err = capsys.readouterr().err
    rec = json.loads(out.read_text()) if out.is_file() else None
    return rc, rec, err


@contextlib.contextmanager
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def floats(values: list) -> torch.Tensor:
    """A record's float32 array (9 significant digits, null for non-finite)
    read back as the float32 values it wrote, in float64 for arithmetic."""
    return torch.tensor([math.nan if v is None else v for v in values], dtype=torch.float32).double()


def dump_params(case: CaseDump, states: list) -> torch.Tensor:
    """A dump's per-model states flattened as runner.cpp flattens
    CaseRecord.final_params: the parameters in order, float32."""
    parts = []
    for state in states:
        model = M.make_model(case.spec.model, case.spec.sizes)
        parts += [state[n].to(torch.float32).reshape(-1) for n, _ in model.named_parameters()]
    return torch.cat(parts).double()


def rel_l2(value: torch.Tensor, reference: torch.Tensor, origin: torch.Tensor) -> float:
    """harness/core/distance.cpp relative_l2: ||value - reference|| / ||reference - origin||."""
    return ((value - reference).norm() / (reference - origin).norm()).item()


def as_run(case: CaseDump, rec: dict) -> Run:
    """The record read back into the replay's terms, its parameters put back
    under their names in the record's (runner.cpp's) order; buffers, which
    CaseRecord does not hold, are the dump's."""
    flat = floats(rec["final_params"]).float()
    final, at = [], 0
    for state in case.cpp.final:
        model = M.make_model(case.spec.model, case.spec.sizes)
        mine = dict(state)
        for name, p in model.named_parameters():
            mine[name] = flat[at:at + p.numel()].reshape(p.shape).to(state[name].dtype)
            at += p.numel()
        final.append(mine)
    assert at == flat.numel(), "final_params is longer than the models' parameters"
    opt, at = [], 0
    state_flat = floats(rec["optimizer_state"]).float()
    for name, t in case.cpp.optimizer_state:
        opt.append((name, state_flat[at:at + t.numel()].reshape(t.shape).to(t.dtype)))
        at += t.numel()
    assert at == state_flat.numel(), "optimizer_state is longer than the dump's"
    return Run(loss=[math.nan if v is None else v for v in rec["loss"]], scale=rec["scale"],
               skipped=rec["skipped"], initial=case.cpp.initial, final=final, optimizer_state=opt)
