"""python -m reference.export MODULE:FACTORY --input SHAPE --out FILE.pt

Turns a Python module into the file a suite names under "models" (a
TorchScript module: torch.jit.script, or torch.jit.trace when the scripted
file cannot be made, saved, run or trained like the module; the output and
the suite's description say which) and writes a runnable suite beside it
(FILE.suite.json): the
single-process workloads in fp32, fp16, bf16 and O2 with SGD and AdamW,
resume, DDP and every negative control that applies, or with --matrix quick
plain and accumulation with SGD and two controls.  See docs/your-model.md.

    python -m reference.export torchvision.models:resnet18 --input 3,64,64 \\
        --kwargs '{"num_classes": 10}' --out my-models/resnet18.pt

MODULE is a module on the path (package.module) or a Python file
(path/to/model.py).

Exit: 0 written; 2 bad arguments or a module that cannot be exported (one
line on stderr: the reason and what to do); nothing is written over an
existing file, and nothing is left behind by a failed export.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from .export_checks import (PRECISIONS, ExportError, forward_flops, model_name, precision_refusals, pytorch_message,
                            require_trainable, training_refusal)
from .export_file import WAYS, best_file, place, temporary
from .python import scripted, user_module

WORKLOADS = ["plain", "clip_norm", "clip_value", "accumulation", "multi"]
# The units of suites/smoke.json, which the tiny models there conform within.
TOLERANCES = {
    "noise_factor": 10,
    "envelope": {"replicas": 3, "c": 4, "noise": "init"},
    "fp32": {"loss_rel_units": 1, "param_rel_units": 1, "optimizer_state_rel_units": 1, "final_loss_ratio_units": 1,
             "max_extra_skipped_steps": 0},
    "fp16": {"loss_rel_units": 8, "param_rel_units": 256, "optimizer_state_rel_units": 512,
             "final_loss_ratio_units": 8, "max_extra_skipped_steps": 3},
    "bf16": {"loss_rel_units": 4, "param_rel_units": 96, "optimizer_state_rel_units": 192,
             "final_loss_ratio_units": 4, "max_extra_skipped_steps": 0},
    "o2": {"loss_rel_units": 8, "param_rel_units": 256, "optimizer_state_rel_units": 512,
           "final_loss_ratio_units": 8, "max_extra_skipped_steps": 3},
}


def _shape(text: str) -> list[int]:
    try:
        dims = [int(d) for d in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not dims or any(d < 1 for d in dims):
        raise argparse.ArgumentTypeError(f"dimensions must be positive, got {text!r}")
    return dims


def _inputs(args) -> list[dict]:
    if args.tokens is not None:
        if args.input:
            raise ExportError("--tokens and --input exclude each other (token ids must be the only input)")
        if args.vocab is None:
            raise ExportError("--tokens needs --vocab")
        return [{"kind": "tokens", "shape": [args.tokens], "vocab": args.vocab}]
    if not args.input:
        raise ExportError("give --input SHAPE (repeat it for several float inputs) or --tokens SEQ --vocab V")
    return [{"kind": "float", "shape": s, "vocab": 0} for s in args.input]


def example(inputs: list[dict], batch: int, generator: torch.Generator) -> list[torch.Tensor]:
    if inputs[0]["kind"] == "tokens":
        return [torch.randint(1, inputs[0]["vocab"], [batch, *inputs[0]["shape"]], generator=generator)]
    return [torch.randn([batch, *spec["shape"]], generator=generator) for spec in inputs]


def second_order_works(module: torch.nn.Module, args: list[torch.Tensor], target: str) -> bool:
    """Whether the gradient penalty can differentiate its backward."""
    module = copy.deepcopy(module)
    try:
        out = module(*args)
        loss = F.cross_entropy(out.flatten(0, 1) if target == "next_token" else out,
                               torch.zeros(out.shape[:-1], dtype=torch.long).flatten())
        grads = torch.autograd.grad(loss, [p for p in module.parameters() if p.requires_grad], create_graph=True,
                                    allow_unused=True)
        sum(g.pow(2).sum() for g in grads if g is not None).backward()
        return True
    except Exception:  # noqa: BLE001 - any failure means "first order only"
        return False


def _controls(name: str, penalty: bool, quick: bool) -> list[dict]:
    """The negative controls of suites/smoke.json, with the settings that
    make each mistake show (gradients that underflow float16 without a
    scaler, an inf for a fresh scaler to mishandle, a scaler that grows
    often); the full matrix adds a resumed run (held bitwise to the
    uninterrupted one), its control and DDP over 2 local ranks."""
    def control(workload, variant, optimizer="sgd", **settings):
        return {"workload": workload, "model": name, "precision": "fp16", "optimizer": optimizer,
                "variant": variant, "expect": "fail", **settings}
    cases = [control("plain", "fresh_scaler_each_step", tag="inject", scaler={"growth_interval": 3}, inject_inf_step=4),
             control("accumulation", "step_every_microbatch")]
    if quick:
        return cases
    cases += [control("plain", "no_scaler", "adamw", tag="tinygrad", loss_multiplier=2.0 ** -24),
              control("clip_norm", "clip_before_unscale"),
              control("multi", "update_per_optimizer", tag="growth", scaler={"growth_interval": 2},
                      tolerance={"max_extra_skipped_steps": 6})]
    if penalty:
        cases.append(control("penalty", "penalty_from_scaled_grads"))
    return cases + [
        {"workload": "plain", "model": name, "precision": "fp16", "optimizer": "adamw", "tag": "resume",
         "resume_at": 6},
        control("plain", "resume_without_scaler_state", "adamw", tag="resume", resume_at=6, inject_inf_step=6,
                scaler={"growth_interval": 2}),
        {"workload": "ddp", "model": name, "precision": "fp16", "optimizer": "sgd", "world_size": 2, "tag": "2ranks"}]


def suite_for(name: str, pt: Path, inputs: list[dict], out_shape: list[int], batch: int, target: str,
              flops: float | None, penalty: bool, quick: bool = False, left_out: dict | None = None,
              no_flops: str | None = None, python: dict | None = None) -> dict:
    """A runnable suite for the exported file: the full matrix, or (quick)
    plain and accumulation with SGD at 8 steps and two controls; without the
    precisions in `left_out` (precision -> why) and the cases that need them,
    and without forward_flops (so without MFU) when they are unknown."""
    left_out = left_out or {}
    entry = {"torchscript": pt.name, "inputs": [{"shape": i["shape"]} if i["kind"] == "float" else
                                                {"tokens": i["shape"][0], "vocab": i["vocab"]} for i in inputs],
             "batch": batch}
    if flops is not None:
        entry["forward_flops"] = flops
    if python is not None:
        entry["python"] = python  # the module the file was made from: the compiled implementation trains it
    if target == "class":
        entry["classes"] = out_shape[-1]
    else:
        entry["target"] = "next_token"
    if quick:
        workloads, optimizers, what = ["plain", "accumulation"], ["sgd"], "plain and accumulation with SGD"
    else:
        workloads, optimizers = WORKLOADS + (["penalty"] if penalty else []), ["sgd", "adamw"]
        what = "the single-process workloads with SGD and AdamW, resume and DDP"
    precisions = [p for p in PRECISIONS if p not in left_out]
    notes = "".join(f" {p} left out: {why.rstrip('.')}." for p, why in left_out.items())
    notes += f" No MFU: {no_flops}." if no_flops else ""
    return {
        "name": name,
        "description": f"{name} ({pt.name}, exported by python -m reference.export): {what} in "
                       f"{', '.join(precisions)}, and the negative controls that can run.{notes}",
        "defaults": {"steps": 8 if quick else 12, "seed": 1, "lr": {"sgd": 0.05, "adamw": 0.003},
                     "max_norm": 0.3, "clip_value": 0.01},
        "models": {name: entry},
        "matrix": {"workloads": workloads, "models": [name], "precisions": precisions, "optimizers": optimizers},
        "cases": [c for c in _controls(name, penalty, quick) if c["precision"] in precisions],
        "tolerances": TOLERANCES,
        "throughput": {"warmup_steps": 1, "measured_steps": 3, "repetitions": 3},
    }


def export(args) -> tuple[Path, Path]:
    out = Path(args.out)
    snippet = out.with_suffix(".suite.json")
    for path in (out, snippet):
        if path.exists():
            raise ExportError(f"{path} exists (nothing is written over a file)")
    if out.suffix != ".pt":
        raise ExportError(f"--out {out}: expected a .pt file name")
    name, notice = model_name(args.name, out.stem)
    if notice:
        print(f"reference.export: {notice}", file=sys.stderr)
    inputs = _inputs(args)
    module = _module(args)
    xs = example(inputs, 2, torch.Generator().manual_seed(args.seed))
    target, out_shape = _eager_output(module, xs, inputs)
    created = [d for d in [out.parent, *out.parent.parents] if not d.exists()]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExportError(f"--out {out}: cannot create its folder ({e.strerror}): choose another --out") from None
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise ExportError(f"--out {out}: its folder is not writable: choose another --out")
    try:
        pt, how, left_out = best_file(module, xs, out, lambda path: _file_checks(module, path, inputs, xs, target,
                                                                                  out_shape))
        try:
            suite = _suite(args, name, out, module, inputs, xs, target, out_shape, how, left_out)
            place([(pt, out), (_written(snippet, json.dumps(suite, indent=2) + "\n"), snippet)])
        finally:
            pt.unlink(missing_ok=True)  # gone already once renamed into place
    except BaseException:
        for d in created:  # innermost first; only what this export made, and only if still empty
            if d.is_dir() and not any(d.iterdir()):
                d.rmdir()
        raise
    print(f"wrote {out} ({WAYS[how]}) and {snippet}")
    return out, snippet


def _written(path: Path, text: str) -> Path:
    """`text` in a temporary file beside `path`, for place() to rename."""
    tmp = temporary(path)
    try:
        tmp.write_text(text)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise ExportError(f"cannot write {path}: {e.strerror or e}: free some space or choose another --out") from None
    return tmp


def _module(args) -> torch.nn.Module:
    torch.manual_seed(args.seed)
    try:
        kwargs = json.loads(args.kwargs)
    except json.JSONDecodeError as e:
        raise ExportError(f"--kwargs: not JSON: {e}") from None
    if not isinstance(kwargs, dict):
        raise ExportError(f"--kwargs: expected a JSON object, got {args.kwargs!r}")
    try:
        module = user_module.make(args.factory, kwargs)
    except user_module.ModuleError as e:
        raise ExportError(str(e)) from None
    require_trainable(module)
    module.train()
    return module


def _eager_output(module: torch.nn.Module, xs: list, inputs: list[dict]) -> tuple[str, list[int]]:
    """The loss's target kind and the output's shape, from the module itself
    (on a copy: a forward in training mode moves BatchNorm's statistics)."""
    try:
        with torch.no_grad():
            y = copy.deepcopy(module)(*xs)
    except Exception as e:  # noqa: BLE001
        raise ExportError(f"the module's forward fails on a batch of 2 of the described inputs: "
                          f"{pytorch_message(e)}") from None
    if not isinstance(y, torch.Tensor) or not y.is_floating_point():
        raise ExportError("the forward must return one floating tensor (the logits)")
    target = "next_token" if inputs[0]["kind"] == "tokens" and y.dim() == 3 else "class"
    if y.dim() != (3 if target == "next_token" else 2):
        raise ExportError(f"the forward returned shape {list(y.shape)} for a batch of 2: expected [batch, classes] "
                          f"(or [batch, seq, vocab] for token ids)")
    return target, list(y.shape)


def _file_checks(module: torch.nn.Module, path: Path, inputs: list[dict], xs: list, target: str,
                 out_shape: list[int]) -> dict[str, str]:
    """Loads the file as the harness will and holds it to the module: its
    output, each precision's step, a few training steps. The precisions to
    leave out (precision -> why); ExportError when the file cannot stand in
    for the module."""
    def load():
        return scripted.load({"path": str(path), "inputs": inputs})
    with torch.jit.optimized_execution(False):
        y = load()(*xs)
    if not isinstance(y, torch.Tensor) or list(y.shape) != out_shape:
        got = list(y.shape) if isinstance(y, torch.Tensor) else type(y).__name__
        raise ExportError(f"the file returns {got} where the module returns shape {out_shape}")
    left_out = precision_refusals(module, load, xs, target)
    training_refusal(module, load, xs, target)
    return left_out


def _suite(args, name: str, out: Path, module: torch.nn.Module, inputs: list[dict], xs: list, target: str,
           out_shape: list[int], how: str, left_out: dict[str, str]) -> dict:
    for precision, why in left_out.items():
        print(f"reference.export: {precision} left out of the suite: {why}", file=sys.stderr)
    try:
        flops, no_flops = forward_flops(module, xs)
    except Exception as e:  # noqa: BLE001 - a count that cannot be made is no reason to refuse the model
        flops, no_flops = None, f"torch.utils.flop_counter fails on it: {pytorch_message(e)}"
    if no_flops:
        print(f"reference.export: no forward_flops (no MFU): {no_flops}", file=sys.stderr)
    suite = suite_for(name, out, inputs, out_shape, args.batch, target, flops, second_order_works(module, xs, target),
                      quick=args.matrix == "quick", left_out=left_out, no_flops=no_flops,
                      python={"factory": user_module.resolve(args.factory), "kwargs": json.loads(args.kwargs)})
    suite["description"] += f" The file was {WAYS[how]}."
    return suite


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reference.export", description=__doc__.splitlines()[0])
    p.add_argument("factory", help="package.module:callable or path/to/file.py:callable returning the torch.nn.Module")
    p.add_argument("--kwargs", default="{}", help="JSON object of keyword arguments for the factory")
    p.add_argument("--input", type=_shape, action="append", default=[],
                   help="one float input's per-sample shape, e.g. 3,64,64 (repeat for several inputs)")
    p.add_argument("--tokens", type=int, help="token-id input: sequence length")
    p.add_argument("--vocab", type=int, help="token-id input: vocabulary size")
    p.add_argument("--batch", type=int, default=8, help="the suite's batch size [8]")
    p.add_argument("--seed", type=int, default=0, help="torch.manual_seed before the factory runs [0]")
    p.add_argument("--name", help="the model's name in the suite [the file's stem]")
    p.add_argument("--matrix", choices=("full", "quick"), default="full",
                   help="the suite written beside the file: every single-process workload with SGD and AdamW, "
                        "resume and DDP [full], or plain and accumulation with SGD at 8 steps (quick)")
    p.add_argument("--out", required=True, help="the TorchScript file to write (.pt)")
    args = p.parse_args(argv)
    try:
        export(args)
    except ExportError as e:
        print(f"reference.export: error: {' '.join(str(e).split())}", file=sys.stderr)  # one line, always
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
