"""python -m reference.export MODULE:FACTORY --input SHAPE --out FILE.pt

Turns a Python module into the file a suite names under "models" (a
TorchScript module: torch.jit.script, falling back to torch.jit.trace with a
warning) and writes a runnable suite beside it (FILE.suite.json): the
single-process workloads in fp32, fp16, bf16 and O2 with SGD and AdamW,
resume, DDP and every negative control that applies, or with --matrix quick
plain and accumulation with SGD and two controls.  See docs/your-model.md.

    python -m reference.export torchvision.models:resnet18 --input 3,64,64 \\
        --kwargs '{"num_classes": 10}' --out my-models/resnet18.pt

Exit: 0 written; 2 bad arguments or a module that cannot be exported (the
reason on stderr); nothing is written over an existing file.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from .export_checks import PRECISIONS, ExportError, forward_flops, model_name, precision_refusals, require_trainable
from .python import scripted

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


def _factory(spec: str):
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ExportError(f"{spec!r}: expected package.module:factory")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ExportError(f"{spec}: {e}") from None
    if not callable(obj):
        raise ExportError(f"{spec}: not callable")
    return obj


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


def to_torchscript(module: torch.nn.Module, args: list[torch.Tensor]) -> tuple[torch.jit.ScriptModule, str]:
    try:
        return torch.jit.script(module), "script"
    except Exception as e:  # noqa: BLE001 - any scripting failure falls back to tracing
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        warnings.warn(f"torch.jit.script failed ({first}); tracing instead: control flow that depends on the "
                      f"input is frozen to this example's path", stacklevel=2)
    try:
        return torch.jit.trace(module, tuple(args), check_trace=False), "trace"
    except Exception as e:  # noqa: BLE001
        raise ExportError(f"neither torch.jit.script nor torch.jit.trace can export it: {e}") from None


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
              no_flops: str | None = None) -> dict:
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
    torch.manual_seed(args.seed)
    try:
        module = _factory(args.factory)(**json.loads(args.kwargs))
    except json.JSONDecodeError as e:
        raise ExportError(f"--kwargs: not JSON: {e}") from None
    if not isinstance(module, torch.nn.Module):
        raise ExportError(f"{args.factory} returned {type(module).__name__}, not a torch.nn.Module")
    require_trainable(module)
    module.train()
    gen = torch.Generator().manual_seed(args.seed)
    xs = example(inputs, 2, gen)
    ts, how = to_torchscript(module, xs)
    out.parent.mkdir(parents=True, exist_ok=True)
    ts.save(str(out))
    try:
        suite = _checked_suite(args, name, out, module, inputs, xs)
    except BaseException:
        out.unlink()  # nothing half-made stays behind
        raise
    snippet.write_text(json.dumps(suite, indent=2) + "\n")
    print(f"wrote {out} (torch.jit.{how}) and {snippet}")
    return out, snippet


def _checked_suite(args, name: str, out: Path, module: torch.nn.Module, inputs: list[dict], xs: list) -> dict:
    """Loads the written file back as the harness will, checks its output,
    and describes it in a suite."""
    loaded = scripted.load({"path": str(out), "inputs": inputs})
    with torch.jit.optimized_execution(False):
        y = loaded(*xs)
    if not isinstance(y, torch.Tensor) or not y.is_floating_point():
        raise ExportError("the forward must return one floating tensor (the logits)")
    target = "next_token" if inputs[0]["kind"] == "tokens" and y.dim() == 3 else "class"
    if y.dim() != (3 if target == "next_token" else 2):
        raise ExportError(f"the forward returned shape {list(y.shape)} for a batch of 2: expected [batch, classes] "
                          f"(or [batch, seq, vocab] for token ids)")
    flops, no_flops = forward_flops(module, xs)
    left_out = precision_refusals(module, lambda: scripted.load({"path": str(out), "inputs": inputs}), xs, target)
    for precision, why in left_out.items():
        print(f"reference.export: {precision} left out of the suite: {why}", file=sys.stderr)
    if no_flops:
        print(f"reference.export: no forward_flops (no MFU): {no_flops}", file=sys.stderr)
    return suite_for(name, out, inputs, list(y.shape), args.batch, target, flops,
                     second_order_works(module, xs, target), quick=args.matrix == "quick", left_out=left_out,
                     no_flops=no_flops)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reference.export", description=__doc__.splitlines()[0])
    p.add_argument("factory", help="package.module:callable returning the torch.nn.Module")
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
        print(f"reference.export: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
