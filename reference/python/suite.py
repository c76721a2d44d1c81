"""Suite files (suites/NAME.json) expanded to cases exactly as
harness/suite/suite.cpp does: the matrix (workload x model x optimizer x
precision, in that nesting) and then the explicit cases, each preceded by its
fp32 baseline the first time that baseline is needed; ids as make_case_id.

Only what the Python bench needs is modelled; tolerances are read for
structure but not resolved.  DataParallel and DDP cases are left out: the
Python oracle covers the single-process workloads (the C++ harness checks the
distributed ones against its own single-process runs).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

from .bounded_json import JsonInputError, parse_bounded_json, read_bounded_json
from .spec import (DEFAULT_LOSS, DEFAULT_MULTI_COEFFICIENTS, DEFAULT_OPTIMIZER_SETTINGS, DEFAULT_SCALER, FP8_PRECISIONS,
                   MODELS, OPTIMIZER_IMPLS, OPTIMIZERS, PRECISIONS, VARIANTS, WORKLOADS, Spec, Throughput)

REPO_ROOT = Path(__file__).resolve().parents[2]


class SuiteError(ValueError):
    pass


@dataclass
class Settings:
    steps: int = 10
    seed: int = 1
    lr: dict = field(default_factory=lambda: {"sgd": 0.05, "adam": 0.003, "adamw": 0.003})
    cosine_schedule: bool = False
    iters_to_accumulate: int = 2
    max_norm: float = 1.0
    clip_value: float = 0.05
    loss_multiplier: float = 1.0
    inject_inf_step: int = -1
    inject_inf_optimizer: int = 0
    scaler: dict = field(default_factory=lambda: dict(DEFAULT_SCALER))
    optimizer_impl: str = "loop"  # part of the case id when not loop: no tag needed
    resume_at: int = -1
    cuda_graph: bool = False  # part of the case id ("+graph"): no tag needed
    optimizer_settings: dict = field(default_factory=lambda: copy.deepcopy(DEFAULT_OPTIMIZER_SETTINGS))
    loss: dict = field(default_factory=lambda: dict(DEFAULT_LOSS))
    inject_inf_param: str = ""
    multi_coefficients: list = field(default_factory=lambda: list(DEFAULT_MULTI_COEFFICIENTS))


SETTING_KEYS = ("steps", "seed", "lr", "cosine_schedule", "iters_to_accumulate", "max_norm", "clip_value",
                "loss_multiplier", "inject_inf_step", "inject_inf_optimizer", "scaler", "world_size", "input",
                "tolerance", "resume_at", "optimizer_settings", "loss", "label_smoothing", "inject_inf_param",
                "multi_coefficients", "fp8", "sizes")
DISTRIBUTED_WORKLOADS = ("dataparallel", "ddp")


@dataclass
class Suite:
    name: str
    path: str
    cases: list


def needs_scaler(precision: str) -> bool:
    return precision in ("fp16", "o2")


def make_case_id(c: Spec) -> str:
    out = c.workload
    if c.variant != "correct":
        out += "+" + c.variant
    out += f"/{c.model}/{c.precision}"
    if c.scaler_enabled and not needs_scaler(c.precision):
        out += "+scaler"
    out += "/" + c.optimizer
    if c.optimizer_impl != "loop":
        out += "+" + c.optimizer_impl
    if c.cuda_graph:
        out += "+graph"
    if c.tag:
        out += "@" + c.tag
    return out


def resolve_suite_path(name_or_path: str) -> Path:
    if "/" in name_or_path or name_or_path.endswith(".json"):
        return Path(name_or_path)
    path = REPO_ROOT / "suites" / f"{name_or_path}.json"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in (REPO_ROOT / "suites").glob("*.json")))
        raise SuiteError(f"unknown suite '{name_or_path}' (known: {known})")
    return path


def _read_settings(node: dict, base: Settings, where: str) -> Settings:
    s = copy.deepcopy(base)
    if where == "defaults" and "inject_inf_optimizer" in node:
        # As the C++ loader: the matrix mixes one-optimizer workloads with multi's two.
        raise SuiteError(f"{where}.inject_inf_optimizer: a per-case setting (not allowed in defaults)")
    for key in ("steps", "seed", "cosine_schedule", "iters_to_accumulate", "max_norm", "clip_value",
                "loss_multiplier", "inject_inf_step", "inject_inf_optimizer", "resume_at"):
        if key in node:
            setattr(s, key, node[key])
    if isinstance(s.inject_inf_optimizer, bool) or not isinstance(s.inject_inf_optimizer, int):
        raise SuiteError(f"{where}.inject_inf_optimizer: expected an integer, got {s.inject_inf_optimizer!r}")
    if "lr" in node:
        lr = node["lr"]
        if isinstance(lr, (int, float)):
            s.lr = {o: float(lr) for o in s.lr}
        elif isinstance(lr, dict):
            s.lr.update({k: float(v) for k, v in lr.items()})
        else:
            raise SuiteError(f"{where}.lr: expected a number or an object")
    if "scaler" in node:
        s.scaler.update(node["scaler"])
    for name, kwargs in node.get("optimizer_settings", {}).items():
        s.optimizer_settings.setdefault(name, {}).update(kwargs)
    if "loss" in node:
        s.loss = {"kind": node["loss"], "label_smoothing": 0.0}
    if "label_smoothing" in node:
        s.loss["label_smoothing"] = float(node["label_smoothing"])
    s.inject_inf_param = node.get("inject_inf_param", s.inject_inf_param)
    if "multi_coefficients" in node:
        (a, b), (c, d) = node["multi_coefficients"]
        s.multi_coefficients = [float(a), float(b), float(c), float(d)]
    s.cuda_graph = bool(node.get("cuda_graph", s.cuda_graph))
    if "optimizer_impl" in node:
        if node["optimizer_impl"] not in OPTIMIZER_IMPLS:
            raise SuiteError(f"{where}.optimizer_impl: unknown optimizer_impl '{node['optimizer_impl']}' "
                             f"(known: {', '.join(OPTIMIZER_IMPLS)})")
        s.optimizer_impl = node["optimizer_impl"]
    return s


def _read_throughput(node: dict) -> Throughput:
    t = Throughput()
    for key in ("enabled", "warmup_steps", "measured_steps", "repetitions", "input"):
        if key in node:
            setattr(t, key, node[key])
    if t.input not in ("cached", "host"):
        raise SuiteError(f"throughput.input: expected \"cached\" or \"host\", got \"{t.input}\"")
    return t


def _make_case(ctx: dict, workload: str, model: str, precision: str, optimizer: str, s: Settings) -> Spec:
    return Spec(id="", workload=workload, model=model, precision=precision, optimizer=optimizer,
                scaler_enabled=needs_scaler(precision), device=ctx["device"], steps=s.steps, seed=s.seed,
                lr=s.lr[optimizer], cosine_schedule=s.cosine_schedule, sizes=dict(ctx["models"][model]),
                iters_to_accumulate=s.iters_to_accumulate, max_norm=s.max_norm, clip_value=s.clip_value,
                loss_multiplier=s.loss_multiplier, inject_inf_step=s.inject_inf_step,
                inject_inf_optimizer=s.inject_inf_optimizer, scaler=dict(s.scaler), throughput=copy.copy(ctx["throughput"]),
                optimizer_impl=s.optimizer_impl, resume_at=s.resume_at, cuda_graph=s.cuda_graph,
                optimizer_settings=dict(s.optimizer_settings.get(optimizer, {})), loss=dict(s.loss),
                inject_inf_param=s.inject_inf_param, multi_coefficients=list(s.multi_coefficients),
                torchscript=ctx["scripted"].get(model),
                expect="report" if precision == "o3" else "pass")  # O3's verdict is reported, not required


def _scripted_entry(entry: dict, suite_path: str) -> dict:
    """A model given by file as the dump describes it (harness/runner/case_dump.cpp)."""
    file = Path(entry["torchscript"])
    path = file if file.is_absolute() else Path(suite_path).resolve().parent / file
    inputs = [{"kind": "float", "shape": list(i["shape"]), "vocab": 0} if "shape" in i else
              {"kind": "tokens", "shape": [i["tokens"]], "vocab": i["vocab"]} for i in entry["inputs"]]
    out = {"path": str(path), "inputs": inputs}
    if "python" in entry:
        out["python"] = {"factory": entry["python"]["factory"], "kwargs": entry["python"].get("kwargs", {})}
    return out


def _needs_baseline(c: Spec) -> bool:
    return c.precision != "fp32" or c.scaler_enabled or c.variant != "correct"


def _baseline_for(c: Spec, ctx: dict) -> Spec:
    b = copy.deepcopy(c)
    b.precision, b.variant, b.scaler_enabled, b.expect = "fp32", "correct", False, "pass"
    b.resume_at = -1  # the uninterrupted run
    b.throughput = copy.copy(ctx["throughput"])
    b.throughput.input = c.throughput.input  # speedups compare like with like
    b.baseline_id = ""
    b.id = make_case_id(b)
    return b


def _check_inject_optimizer(c: Spec, ctx: dict, where: str) -> None:
    """The C++ loader's rule: an optimizer index of the case's workload (2
    for multi, 1 otherwise), and only with an injected inf."""
    if not 0 <= c.inject_inf_optimizer < c.model_count():
        raise SuiteError(f"{ctx['file']}: {where}.inject_inf_optimizer: must be an optimizer index below "
                         f"{c.model_count()} (the {c.workload} workload has {c.model_count()}), got "
                         f"{c.inject_inf_optimizer}")
    if c.inject_inf_optimizer != 0 and c.inject_inf_step < 0:
        raise SuiteError(f"{ctx['file']}: {where}.inject_inf_optimizer: needs an \"inject_inf_step\"")


def _add_case(cases: list, ids: set, c: Spec, ctx: dict, where: str) -> None:
    _check_inject_optimizer(c, ctx, where)
    if _needs_baseline(c):
        base = _baseline_for(c, ctx)
        c.baseline_id = base.id
        if base.id not in ids:
            ids.add(base.id)
            cases.append(base)
    c.id = make_case_id(c)
    if c.id in ids:
        if not _needs_baseline(c):
            return
        raise SuiteError(f"{ctx['file']}: {where}: duplicate case id '{c.id}' (give it a distinct \"tag\")")
    ids.add(c.id)
    cases.append(c)


def _require_tolerance_row(ctx: dict, precision: str, where: str) -> None:
    """As the C++ loader, for tf32: its row is optional until a suite runs
    tf32 (the fp32/fp16/bf16 rows the C++ loader requires of every suite are
    not modelled here)."""
    if precision == "tf32" and precision not in ctx["tolerances"]:
        raise SuiteError(f"{ctx['file']}: {where}: precision '{precision}' has no row in \"tolerances\"")


def _read_explicit(ctx: dict, node: dict, where: str) -> Spec:
    for key in ("workload", "model", "precision", "optimizer"):
        if key not in node:
            raise SuiteError(f"{ctx['file']}: {where}.{key}: missing required field")
    w, m, p, o = node["workload"], node["model"], node["precision"], node["optimizer"]
    if w in DISTRIBUTED_WORKLOADS:
        return None
    if w not in WORKLOADS or (m not in MODELS and m not in ctx["scripted"]) or p not in PRECISIONS \
            or o not in OPTIMIZERS:
        raise SuiteError(f"{ctx['file']}: {where}: unknown workload/model/precision/optimizer")
    if m not in ctx["models"]:
        raise SuiteError(f"{ctx['file']}: {where}.model: model '{m}' has no sizes in \"models\"")
    _require_tolerance_row(ctx, p, f"{where}.precision")
    c = _make_case(ctx, w, m, p, o, _read_settings(node, ctx["defaults"], where))
    c.variant = node.get("variant", "correct")
    if c.variant not in VARIANTS[w]:
        raise SuiteError(f"{ctx['file']}: {where}.variant: unknown variant '{c.variant}' of {w}")
    if c.variant == "resume_without_scaler_state" and c.resume_at < 0:
        raise SuiteError(f"{ctx['file']}: {where}.variant: resume_without_scaler_state needs a \"resume_at\"")
    c.tag = node.get("tag", "")
    if any(k in node for k in SETTING_KEYS) and not c.tag:
        raise SuiteError(f"{ctx['file']}: {where}.tag: a case that overrides settings needs a \"tag\"")
    c.scaler_enabled = bool(node.get("scaler_enabled", needs_scaler(p)))
    if c.variant in ("no_scaler", "fp16_weights_no_master"):  # both train without a GradScaler
        c.scaler_enabled = False
    if c.scaler_enabled and p in ("bf16", "tf32", "o3", *FP8_PRECISIONS):
        raise SuiteError(f"{ctx['file']}: {where}.scaler_enabled: {p} with a GradScaler is a configuration mistake")
    c.expect = node.get("expect", "report" if p == "o3" else "pass")
    if "input" in node:
        c.throughput.input = node["input"]
    if "sizes" in node:  # the case's own model sizes (every key), as the C++ loader
        c.sizes = {**c.sizes, **node["sizes"]}
    c.throughput.enabled = c.throughput.enabled and c.expect != "fail"
    return c


def parse_suite(text: str, path: str, device: str) -> Suite:
    try:
        root = parse_bounded_json(text, path)
    except JsonInputError as e:
        raise SuiteError(str(e)) from None
    return _suite_from_root(root, path, device)


def _suite_from_root(root, path: str, device: str) -> Suite:
    if not isinstance(root, dict) or "name" not in root:
        raise SuiteError(f"{path}: name: missing required field")
    if "models" not in root:
        raise SuiteError(f"{path}: models: missing required field")
    models = {}
    scripted = {}
    for name, sizes in root["models"].items():
        if isinstance(sizes, dict) and "torchscript" in sizes:
            scripted[name] = _scripted_entry(sizes, path)
            models[name] = {"batch": sizes.get("batch", 8), "classes": sizes.get("classes", 0)}
            continue
        if name not in MODELS:
            raise SuiteError(f"{path}: models.{name}: unknown model '{name}'")
        full = {"batch": 32, "in_features": 64, "hidden": 128, "classes": 16, "channels": 16, "in_channels": 8,
                "image": 16, "seq": 16, "d_model": 64, "heads": 4, "ffn": 128, "layers": 1, "vocab": 64,
                "depth": 18, "patch": 4, "channels_last": False}
        full.update(sizes)
        if name == "gpt2":
            full["classes"] = full["vocab"]  # a next-token model's classes are its vocabulary
        models[name] = full
    ctx = {"file": path, "device": device, "models": models, "scripted": scripted,
           "defaults": _read_settings(root.get("defaults", {}), Settings(), "defaults"),
           "throughput": _read_throughput(root.get("throughput", {})),
           "tolerances": root.get("tolerances", {})}
    cases, ids = [], set()
    if "matrix" in root:
        m = root["matrix"]
        for i, p in enumerate(m["precisions"]):
            if p not in PRECISIONS:
                raise SuiteError(f"{path}: matrix.precisions[{i}]: unknown precision '{p}'")
            _require_tolerance_row(ctx, p, f"matrix.precisions[{i}]")
        for w in (w for w in m["workloads"] if w not in DISTRIBUTED_WORKLOADS):
            for model in m["models"]:
                if model not in models:
                    raise SuiteError(f"{path}: matrix.models: model '{model}' has no sizes in \"models\"")
                for opt in m["optimizers"]:
                    for p in m["precisions"]:
                        _add_case(cases, ids, _make_case(ctx, w, model, p, opt, ctx["defaults"]), ctx, "matrix")
    for i, node in enumerate(root.get("cases", [])):
        where = f"cases[{i}]"
        case = _read_explicit(ctx, node, where)
        if case is not None:
            _add_case(cases, ids, case, ctx, where)
    if not cases:
        raise SuiteError(f"{path}: matrix: the suite expands to no cases")
    for c in cases:
        c.gpu_sized = bool(root.get("gpu_sized", False))
    return Suite(name=root["name"], path=path, cases=cases)


def load_suite(name_or_path: str, device: str) -> Suite:
    path = resolve_suite_path(name_or_path)
    try:
        root = read_bounded_json(path)
    except JsonInputError as e:
        raise SuiteError(str(e)) from None
    return _suite_from_root(root, str(path), device)


def with_optimizer_impl(cases: list, impl: str) -> list:
    """Every case run with optimizer implementation `impl` instead of its
    own: ids (and the baseline ids pointing at them) change as the C++
    loader would name them; cases that become the same are kept once."""
    if impl not in OPTIMIZER_IMPLS:
        raise SuiteError(f"unknown optimizer_impl '{impl}' (known: {', '.join(OPTIMIZER_IMPLS)})")
    renamed, out, seen = {}, [], set()
    for c in cases:
        n = copy.deepcopy(c)
        n.optimizer_impl = impl
        n.id = make_case_id(n)
        renamed[c.id] = n.id
        if n.id not in seen:
            seen.add(n.id)
            out.append(n)
    for n in out:
        n.baseline_id = renamed.get(n.baseline_id, n.baseline_id) if n.baseline_id else n.baseline_id
    return out

