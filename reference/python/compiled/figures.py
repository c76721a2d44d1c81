"""python -m reference.python.compiled.figures DUMP_ROOT OUT_DIR [--cases REGEX] [--rounds N]

The figures of docs/compiled.md, from dumped cases (`ampbench run --dump`):
each case run by the module as a user would run it, in its own process,
eager (--eager), compiled, and compiled with --emulate-precision-casts;
the distances of compiled from eager (final parameters as the checker
measures them, relative L2 over the travel; the largest per-step loss
difference), of both from the case's fp32 twin, the compile facts, and the
speed: N rounds of eager then compiled, one thread, 30 timed steps x 5,
the median per round, the median over rounds and the range of the per-round
ratios.  Prints a Markdown table; keeps every record in OUT_DIR.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

import torch

SPEED = ["--threads", "1", "--throughput-steps", "30", "--throughput-repetitions", "5", "--throughput-warmup", "3",
         "--no-fullgraph-check"]


def module(case: Path, out: Path, *flags: str) -> dict:
    if not out.is_file():
        p = subprocess.run([sys.executable, "-m", "reference.python.compiled", str(case), "--out", str(out), *flags],
                           capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(f"{case.name} {' '.join(flags)}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    return json.loads(out.read_text())


def _t(values: list) -> torch.Tensor:
    return torch.tensor([float("nan") if v is None else v for v in values], dtype=torch.float32).double()


def rel(value: dict, reference: dict) -> float:
    """The checker's param_rel_l2: ||value - reference|| / ||reference - initial||."""
    v, r, o = _t(value["final_params"]), _t(reference["final_params"]), _t(reference["initial_params"])
    return ((v - r).norm() / (r - o).norm()).item()


def loss_rel(value: dict, reference: dict) -> float:
    return max(abs(a - b) / abs(b) for a, b in zip(value["loss"], reference["loss"]))


def fp32_twin(root: Path, case: str) -> Path:
    return root / re.sub(r"_(bf16|fp16)_", "_fp32_", case)


def speed(case: Path, out: Path, rounds: int) -> dict:
    eager, compiled = [], []
    for r in range(rounds):
        eager.append(module(case, out / f"{case.name}.speed-eager{r}.json", "--eager", *SPEED)["throughput"]["median"])
        reuse = ["--reuse-cache"] if r else []
        compiled.append(module(case, out / f"{case.name}.speed-compiled{r}.json", *SPEED, *reuse)["throughput"]["median"])
    ratios = [c / e for c, e in zip(compiled, eager)]
    return {"eager": statistics.median(eager), "compiled": statistics.median(compiled),
            "speedup": statistics.median(compiled) / statistics.median(eager), "ratios": ratios}


def figures(root: Path, out: Path, case: str, rounds: int) -> dict:
    folder = root / case
    eager = module(folder, out / f"{case}.eager.json", "--eager")
    compiled = module(folder, out / f"{case}.compiled.json")
    emulated = module(folder, out / f"{case}.emulated.json", "--emulate-precision-casts", "--no-fullgraph-check")
    fp32 = module(fp32_twin(root, case), out / f"{fp32_twin(root, case).name}.eager.json", "--eager")
    c = compiled["compile"]
    return {"case": case, "compiled_vs_eager": (rel(compiled, eager), loss_rel(compiled, eager)),
            "emulated_vs_eager": (rel(emulated, eager), loss_rel(emulated, eager)),
            "eager_vs_fp32": rel(eager, fp32), "compiled_vs_fp32": rel(compiled, fp32),
            "graphs": c["graphs"], "breaks": c["graph_break_count"], "recompiles": c["recompiles"],
            "fullgraph": c["fullgraph"]["ok"], "cold": c["seconds_cold"], "warm": c["seconds_warm"],
            "speed": speed(folder, out, rounds)}


def row(f: dict) -> str:
    s = f["speed"]
    g = f"{f['graphs']} / {f['breaks']} / {f['recompiles']} / {'yes' if f['fullgraph'] else 'no'}"
    return (f"| {f['case']} | {f['compiled_vs_eager'][0]:.2g}, {f['compiled_vs_eager'][1]:.2g} "
            f"| {f['emulated_vs_eager'][0]:.2g}, {f['emulated_vs_eager'][1]:.2g} | {f['eager_vs_fp32']:.2g} "
            f"| {f['compiled_vs_fp32']:.2g} | {g} | {f['cold']:.1f} / {f['warm']:.2f} "
            f"| {s['eager']:,.0f} / {s['compiled']:,.0f} | {s['speedup']:.2f} ({min(s['ratios']):.2f}-{max(s['ratios']):.2f}) |")


HEADER = ("| case | compiled vs eager: params, loss | emulated vs eager: params, loss | eager vs fp32 | compiled vs fp32 "
          "| graphs / breaks / recompiles / fullgraph | compile s, cold / warm | samples/s, eager / compiled | speedup (range) |\n"
          "|---|---|---|---|---|---|---|---|---|")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reference.python.compiled.figures")
    p.add_argument("root", type=Path, help="a dump root (one folder per case)")
    p.add_argument("out", type=Path, help="where the records go (reused when present)")
    p.add_argument("--cases", default=r"^plain_(mlp|transformer|gpt2)_(fp32|bf16|fp16)_", help="case folders to run")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cases = sorted(d.name for d in args.root.iterdir() if (d / "case.json").is_file() and re.search(args.cases, d.name))
    rows = []
    for case in cases:
        f = figures(args.root, args.out, case, args.rounds)
        (args.out / f"{case}.figures.json").write_text(json.dumps(f, indent=1))
        rows.append(row(f))
        print(rows[-1], file=sys.stderr, flush=True)
    print(HEADER + "\n" + "\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
