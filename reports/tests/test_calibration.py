"""The verdict's calibration record (reports/calibration.py): the rate a
correct case exceeds its bound, with its confidence bound, and whether every
control was caught on every seed with margin."""

from __future__ import annotations

import json
import math

from reports.calibration import binomial_upper, main
from reports.tests.sample_results import make_results, write_results

CONTROL = "clip_norm+clip_before_unscale/mlp/fp16/sgd"


def seed_run(tmp_path, seed, ratios, control_ratio=8.0):
    """One seed's results: every correct case well inside its bound but those
    named in `ratios`; one caught control at `control_ratio`."""
    doc = make_results(ddp=False, negative_controls=True)
    doc["cases"] = [c for c in doc["cases"] if c["expect"] != "fail" or c["id"] == CONTROL]
    for c in doc["cases"]:
        c["seed"] = seed
        if c["check"] is None:
            continue
        ratio = control_ratio if c["id"] == CONTROL else ratios.get(c["id"], 0.5)
        c["check"]["max_ratio"] = ratio
        if c["expect"] == "pass":
            c["status"] = "fail" if ratio > 1 and c["id"].endswith("@stays") else "pass"
    (tmp_path / f"seed-{seed}").mkdir()
    write_results(tmp_path / f"seed-{seed}" / "results.json", doc)


def test_the_upper_bound_is_the_rate_whose_tail_leaves_five_percent():
    # Seen 0 times in n: (1 - p)^n = 0.05.
    assert math.isclose(binomial_upper(0, 300), 1 - 0.05 ** (1 / 300), rel_tol=1e-6)
    assert binomial_upper(3, 100) > 0.03 and binomial_upper(3, 100) < 0.1
    assert binomial_upper(5, 5) == 1.0


def test_a_cleared_excursion_counts_in_the_rate_but_not_as_a_failure(tmp_path, capsys):
    seed_run(tmp_path, 1, {"plain/mlp/fp16/sgd": 1.3})
    seed_run(tmp_path, 2, {})
    assert main([str(tmp_path), "--markdown", str(tmp_path / "cal.md")]) == 0
    out = capsys.readouterr().out
    assert "beyond their bound at their own seed: 1 of" in out
    assert "still failing after the fresh-seed rule: 0 of" in out
    table = (tmp_path / "cal.md").read_text()
    assert "| plain | mlp | fp16 | 4 | 1 | 0 | 1.3 (plain/mlp/fp16/sgd (seed 1)) |" in table


def test_a_control_caught_with_too_little_margin_fails_the_calibration(tmp_path, capsys):
    seed_run(tmp_path, 1, {})
    seed_run(tmp_path, 2, {}, control_ratio=2.0)
    assert main([str(tmp_path)]) == 1
    assert "caught on every seed with margin >= 3 (or by a rule): 0 of 1" in capsys.readouterr().out


def test_no_results_is_refused(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    assert "no results" in capsys.readouterr().err


def test_a_case_beyond_its_bound_on_two_seeds_is_counted_apart(tmp_path, capsys):
    """Seeds independent is the rule's assumption; a case near its bound on
    every seed breaks it, and the record must show that."""
    seed_run(tmp_path, 1, {"plain/mlp/fp16/sgd": 1.3})
    seed_run(tmp_path, 2, {"plain/mlp/fp16/sgd": 1.1, "plain/cnn/bf16/sgd": 1.2})
    main([str(tmp_path)])
    assert "beyond their bound on two or more seeds (the rule assumes seeds independent): 1" in capsys.readouterr().out


def bound(value, ratio):
    return {"distance": [value * ratio], "envelope": [value / 4], "bound": [value], "max_ratio": ratio, "peak_step": 0}


def test_batchnorm_networks_get_their_weight_and_function_space_bounds_side_by_side(tmp_path):
    for seed, (param_bound, probe_bound) in ((1, (2.5, 0.4)), (2, (2.9, 0.3))):
        seed_run(tmp_path, seed, {})
        path = tmp_path / f"seed-{seed}" / "results.json"
        doc = json.loads(path.read_text())
        for c in doc["cases"]:
            if c["id"] == "plain/mlp/fp16/sgd":
                c["check"]["bounds"] = {"param_rel_l2": bound(param_bound, 0.1),
                                        "probe_output_rel_l2": bound(probe_bound, 0.2)}
            if c["id"] == CONTROL:
                c["check"]["bounds"] = {"param_rel_l2": bound(0.1, 1.5),
                                        "probe_output_rel_l2": bound(0.1, 8.0 + seed)}
        path.write_text(json.dumps(doc))
    assert main([str(tmp_path), "--markdown", str(tmp_path / "cal.md")]) == 0
    table = (tmp_path / "cal.md").read_text()
    assert "| plain | mlp | fp16 | 2 | 2.5-2.9 | 0.3-0.4 |" in table
    assert f"| {CONTROL} | 2 | 1.5-1.5 | 9-10 |" in table
