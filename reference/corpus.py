"""python -m reference.corpus BUILD_DIR OUT [--models a,b] [--steps N] [--jobs J] [--implementation compiled]

Bring your own model on public models, as a new user would: each model of
the corpus is exported at a small size with its default settings (dropout
and stochastic depth on) by `python -m reference.export --matrix quick`,
run through that suite by `ampbench run` and cross-checked case by case
against the same file replayed by the Python oracle
(reference/python/run_crosscheck.sh). Nothing is downloaded: torchvision
and timm models without weights, transformers models built from configs
(reference/corpus_models.py).

Prints one Markdown row per model (model, cases, verdict, cross-check) as
each finishes and writes OUT/corpus.md in the corpus's order. --jobs runs
that many models side by side: each export, run and replay is one thread
on each side, so --jobs 2 is what a 2-core machine can do (about 20 minutes for the
corpus). With --implementation compiled each suite is run by `ampbench run
--implementation compiled` instead: the module itself (the suite records it)
trained through torch.compile and judged against the file's eager fp32
baseline, with its graphs and graph breaks in the row; the cross-check is the
eager file's and is not repeated. Exit: 0 every model conforms (unsupported precisions left out
with PyTorch's reason) and every replay agrees; 1 one does not; 2 bad
arguments (OUT must be new, empty or a previous corpus run's), or an
export or a run that could not be done."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = ".reference-corpus"  # OUT is ours to empty on the next run
TV = "torchvision.models"
IMAGE = ["--input", "3,32,32"]
TOKENS = ["--tokens", "12", "--vocab", "100"]
TEN = '{"num_classes": 10}'
# name -> the export's arguments (factory, kwargs, inputs).
CORPUS = {
    "resnet18": [f"{TV}:resnet18", "--kwargs", TEN, *IMAGE],
    "mobilenet_v3_small": [f"{TV}:mobilenet_v3_small", "--kwargs", TEN, *IMAGE],
    "mobilenet_v2": [f"{TV}:mobilenet_v2", "--kwargs", TEN, *IMAGE],
    "efficientnet_b0": [f"{TV}:efficientnet_b0", "--kwargs", TEN, *IMAGE],
    "convnext_tiny": [f"{TV}:convnext_tiny", "--kwargs", TEN, *IMAGE],
    "squeezenet1_1": [f"{TV}:squeezenet1_1", "--kwargs", TEN, *IMAGE],
    "shufflenet_v2_x0_5": [f"{TV}:shufflenet_v2_x0_5", "--kwargs", TEN, *IMAGE],
    "vit": [f"{TV}:VisionTransformer", "--kwargs",
            '{"image_size": 32, "patch_size": 8, "num_layers": 2, "num_heads": 4, "hidden_dim": 32, '
            '"mlp_dim": 64, "num_classes": 10}', *IMAGE],
    "gpt2": ["reference.corpus_models:gpt2", *TOKENS],
    "bert": ["reference.corpus_models:bert", *TOKENS],
    "distilbert": ["reference.corpus_models:distilbert", *TOKENS],
    "t5_encoder": ["reference.corpus_models:t5_encoder", *TOKENS],
    "llama": ["reference.corpus_models:llama", *TOKENS],
    # timm's own definitions, shrunk through their constructors' arguments.
    "timm_vit": ["timm:create_model", "--kwargs",
                 '{"model_name": "vit_tiny_patch16_224", "img_size": 32, "patch_size": 8, "depth": 2, '
                 '"num_classes": 10}', *IMAGE],
    "timm_mixer": ["timm.models.mlp_mixer:MlpMixer", "--kwargs",
                   '{"img_size": 32, "patch_size": 8, "num_blocks": 2, "embed_dim": 32, "num_classes": 10}',
                   *IMAGE],
    "timm_lcnet": ["timm:create_model", "--kwargs", '{"model_name": "lcnet_050", "num_classes": 10}', *IMAGE],
}


def export(py: str, name: str, out: Path, steps: int, batch: int) -> Path:
    pt = out / f"{name}.pt"
    # One thread, as the run and the replay: the export holds the file to the
    # module in one process, so the thread count decides nothing, but two
    # OpenMP threads sharing 2 cores with another job spin against each other
    # (MobileNetV3's export took 118 s instead of 7 beside a busy core).
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.run([py, "-m", "reference.export", *CORPUS[name], "--batch", str(batch), "--matrix", "quick",
                        "--out", str(pt)], cwd=ROOT, env=env, capture_output=True, text=True)
    (out / "export.log").write_text(p.stdout + p.stderr)
    if p.returncode != 0:
        raise RuntimeError(f"{name}: the export failed (exit {p.returncode}): {p.stderr.strip()[-500:]}")
    suite_file = pt.with_suffix(".suite.json")
    suite = json.loads(suite_file.read_text())
    suite["defaults"]["steps"] = steps
    suite_file.write_text(json.dumps(suite, indent=2) + "\n")
    return suite_file


def left_out(export_log: str) -> list[str]:
    return re.findall(r"reference\.export: (\w+) left out of the suite: (.*)", export_log)


def row(name: str, build: Path, out: Path, steps: int, batch: int, py: str) -> tuple[str, bool]:
    suite = export(py, name, out, steps, batch)
    env = dict(os.environ, AMPBENCH_CROSSCHECK_SUITE=str(suite), AMPBENCH_CROSSCHECK_REQUIRE_CONFORMING="1",
               AMPBENCH_PYTHON=py)
    p = subprocess.run([str(ROOT / "reference/python/run_crosscheck.sh"), str(build), str(out / "cc")], env=env,
                       capture_output=True, text=True)
    (out / "crosscheck.log").write_text(p.stdout + p.stderr)
    if p.returncode == 2:
        raise RuntimeError(f"{name}: the run or the check could not be done: {p.stderr.strip()[-500:]}")
    run_log = (out / "cc" / "run.log").read_text()
    verdict = re.search(r"^verdicts: (.*)$", run_log, re.M)
    agree = re.search(r"^(\d+) of (\d+) cases agree with the Python reference, (\d+) disagree, (\d+) unusable",
                      p.stdout, re.M)
    precisions = json.loads(suite.read_text())["matrix"]["precisions"]
    cases = f"quick, {steps} steps, batch {batch}: {', '.join(precisions)}"
    for precision, why in left_out((out / "export.log").read_text()):
        cases += f"; {precision} left out ({why})"
    line = (f"| {name} | {cases} | {verdict.group(1) if verdict else 'no verdict line'} | "
            f"{f'{agree[1]} of {agree[2]} agree, {agree[3]} disagree, {agree[4]} unusable' if agree else 'no check summary'} |")
    return line, p.returncode == 0


def compiled_row(name: str, build: Path, out: Path, steps: int, batch: int, py: str) -> tuple[str, bool]:
    """The suite run compiled: the verdict line and how torch.compile took
    the module (graphs, breaks, cases that compiled whole)."""
    suite = export(py, name, out, steps, batch)
    run = out / "run"
    p = subprocess.run([str(build / "ampbench"), "run", "--device", "cpu", "--suite", str(suite), "--implementation",
                        "compiled", "--no-report", "--threads", "1", "--out", str(run)], capture_output=True, text=True)
    (out / "run.log").write_text(p.stdout + p.stderr)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{name}: the compiled run could not be done (exit {p.returncode}): "
                           f"{p.stderr.strip()[-500:]}")
    verdict = re.search(r"^verdicts: (.*)$", p.stdout, re.M)
    cases = [c for c in json.loads((run / "results.json").read_text())["cases"] if c.get("compiled")]
    breaks = sum(c["compiled"]["graph_break_count"] for c in cases)
    whole = sum(bool(c["compiled"].get("fullgraph", {}).get("ok")) for c in cases)
    graphs = sorted({c["compiled"]["graphs"] for c in cases})
    line = (f"| {name} | quick, {steps} steps, batch {batch}, compiled | "
            f"{verdict.group(1) if verdict else 'no verdict line'} | {len(cases)} cases compiled: graphs "
            f"{'/'.join(map(str, graphs)) or '-'}, {breaks} graph breaks, fullgraph in {whole} of {len(cases)} |")
    return line, p.returncode == 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reference.corpus", description=__doc__.splitlines()[0])
    p.add_argument("build", help="the build folder holding ampbench")
    p.add_argument("out", help="a new folder for the exports, runs and the table")
    p.add_argument("--models", default=",".join(CORPUS), help="comma-separated subset [all]")
    p.add_argument("--steps", type=int, default=8,
                   help="steps per case (the quick suite's; a control injects an inf at step 4) [8]")
    p.add_argument("--batch", type=int, default=8, help="batch size (the export's) [8]")
    p.add_argument("--jobs", type=int, default=1, help="models run side by side [1]")
    p.add_argument("--implementation", choices=("eager", "compiled"), default="eager",
                   help="eager: ampbench's C++ run, cross-checked by the Python oracle; compiled: the module "
                        "through torch.compile, judged against the eager fp32 baseline [eager]")
    args = p.parse_args(argv)
    names = list(dict.fromkeys(n for n in args.models.split(",") if n))
    unknown = [n for n in names if n not in CORPUS]
    build, out = Path(args.build).resolve(), Path(args.out).resolve()
    problem = (f"unknown model(s) {', '.join(unknown)}; the corpus: {', '.join(CORPUS)}" if unknown else
               f"{build}/ampbench is not an executable" if not os.access(build / "ampbench", os.X_OK) else
               f"{out} is not empty and was not made by reference.corpus"
               if out.exists() and any(out.iterdir()) and not (out / MARK).exists() else
               "--steps must be at least 5 (a control injects at step 4), --batch and --jobs positive"
               if args.steps < 5 or args.batch < 1 or args.jobs < 1 else None)
    if problem:
        print(f"reference.corpus: error: {problem}", file=sys.stderr)
        return 2
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    (out / MARK).touch()

    def one(name: str) -> tuple[str, bool]:
        (out / name).mkdir(parents=True)
        start = time.monotonic()
        make_row = compiled_row if args.implementation == "compiled" else row
        line, good = make_row(name, build, out / name, args.steps, args.batch, sys.executable)
        print(f"{line}  ({time.monotonic() - start:.0f} s)", flush=True)
        return line, good

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {name: pool.submit(one, name) for name in names}
    last = ("torch.compile" if args.implementation == "compiled" else "C++ against the same file in Python")
    rows, ok, errors = [f"| model | cases | verdict | {last} |", "|---|---|---|---|"], True, 0
    for name, future in futures.items():  # the corpus's order, whatever order they finished in
        e = future.exception()
        if e is None:
            line, good = future.result()
            rows.append(line)
            ok &= good
        elif isinstance(e, RuntimeError):
            print(f"reference.corpus: error: {e}", file=sys.stderr)
            errors += 1
        else:
            raise e
    (out / "corpus.md").write_text("\n".join(rows) + "\n")
    return 2 if errors else 0 if ok else 1

if __name__ == "__main__":
    sys.exit(main())
