"""Does each model's forward compile as one graph?  Dynamo traces a fresh
copy of the model (from the dumped initial state) with fullgraph=True under
the case's autocast on the first dumped batch; backend "eager" runs the
captured graph as it is, so the probe asks Dynamo's question (can the
forward be captured whole?) without compiling kernels again.  Inductor's own
errors show in the recorded run, which compiles with Inductor."""

from __future__ import annotations

import torch

from ..replay import CaseDump, build_models
from ..step_moves import forward
from ..training_state import TrainingState
from .errors import first_error_line
from .ledger import reset_compiler


def probe(case: CaseDump, device: torch.device) -> dict:
    """{"ok": bool, "reason": None or why the first model that failed did}."""
    x = case.inputs[0].to(device)
    # The case's models as training sees them (FP8 layers, O2/O3's float16 copy).
    s = TrainingState(case.spec, build_models(case.spec, case.cpp.initial, device, case.folder, from_module=True), device)
    reset_compiler()
    try:
        for k, model in enumerate(s.models):
            model.compile(fullgraph=True, backend="eager")
            try:
                forward(s, model, x)  # under the case's autocast
            except Exception as e:  # noqa: BLE001 - the reason is the result
                where = f"model{k}: " if len(s.models) > 1 else ""
                return {"ok": False, "reason": where + first_error_line(e)}
        return {"ok": True, "reason": None}
    finally:
        reset_compiler()
