"""figures.py's arithmetic: the checker's param_rel_l2 and the loss
difference, from records (no run)."""

from __future__ import annotations

import math

from reference.python.compiled import figures


def _rec(initial, final, loss):
    return {"initial_params": initial, "final_params": final, "loss": loss}


def test_distances_are_the_checkers():
    ref = _rec([0.0, 0.0], [3.0, 4.0], [2.0, 1.0])
    assert figures.rel(ref, ref) == 0
    # ||(3,4.5) - (3,4)|| / ||(3,4) - (0,0)|| = 0.5 / 5; the value's own initial is not the origin.
    assert math.isclose(figures.rel(_rec([9.0, 9.0], [3.0, 4.5], [2.0, 1.1]), ref), 0.1, rel_tol=1e-6)
    assert math.isclose(figures.loss_rel(_rec([], [], [2.0, 1.1]), ref), 0.1, rel_tol=1e-9)
    assert figures.fp32_twin(figures.Path("/d"), "plain_gpt2_bf16_adamw").name == "plain_gpt2_fp32_adamw"
