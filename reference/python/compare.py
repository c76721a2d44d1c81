"""Compare a C++ run (from its dump) with the Python replay of the same case.

Pure functions over `Run` values: no file access, so the logic is tested
without the binary (tests/test_compare.py).

What must agree, and how closely (docs/checks.md, "The equivalence envelope", has the argument):

* skipped steps and the scale trajectory: exactly, in every precision.  Both
  follow from the same found_inf flags and ATen's _amp_update_scale_; a
  disagreement is a procedural difference, never rounding.
* fp32: loss per step within 1e-5 relative; every final parameter, buffer and
  optimizer-state tensor elementwise within |py - cpp| <= 1e-5 |cpp| + 1e-6
  max|cpp| (allclose with rtol 1e-5 and an atol of 1e-6 of the tensor's
  largest magnitude, so that tensors of tiny magnitude, such as AdamW's
  exp_avg_sq, are not compared against an absolute 1e-6 that they all fit
  under).
* fp16 / bf16: loss per step within LOSS_UNITS x unit roundoff relative;
  each final tensor within TRAVEL_FRACTION of the distance it travelled,
  ||py - cpp|| <= f ||cpp - initial|| (+ a float32 floor of 1e-6 ||cpp||).
* Integer tensors (BatchNorm's num_batches_tracked): exactly.
* Elements without a true gradient (nograd.py): their optimizer state is
  not compared; the elements are compared with a bound instead (with AdamW
  its drift bound, which the buffers they feed share; with SGD
  COUPLING_FACTOR x how far a redraw of their noise moved them), and in
  fp32 every other tensor may also differ by COUPLING_FACTOR x the effect
  their noise was measured to have on it.
* Non-finite values, per step and in tensors: the same value in the same
  place (inf matches an inf of the same sign, NaN matches NaN; an inf
  against a NaN or a finite value is a mismatch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

UNIT_ROUNDOFF = {"fp32": 2.0 ** -24, "fp16": 2.0 ** -11, "bf16": 2.0 ** -8, "o2": 2.0 ** -11, "o3": 2.0 ** -11}


@dataclass(frozen=True)
class Tolerance:
    loss_rel: float          # per step |py - cpp| / |cpp|
    elem_rtol: float = 0.0   # fp32: elementwise
    elem_atol_frac: float = 0.0
    travel_rel: float = 0.0  # fp16/bf16: ||py - cpp|| / ||cpp - initial||
    floor_rel: float = 1e-6  # ... plus this fraction of ||cpp|| (a tensor that did not move)

    def describe(self) -> str:
        if self.elem_rtol:
            return f"loss_rel {self.loss_rel:.0e}, elementwise rtol {self.elem_rtol:.0e} atol {self.elem_atol_frac:.0e}*max|cpp|"
        return f"loss_rel {self.loss_rel:.2e}, tensors {self.travel_rel:.2e} of distance travelled"


# fp16 / bf16 (docs/checks.md, "The equivalence envelope", has the measurements, on the smoke
# suite's single-process cases):
# * loss per step: 4 unit roundoffs.  A one-ulp float32 perturbation of every
#   initial weight moved no loss by more than 2.9 u (cnn; mlp <= 0.43 u,
#   transformer <= 0.48 u); every wrong procedure (the mlp negative controls)
#   moved it by >= 31 u or changed the scale trajectory.
# * final tensors: 1/16 of the distance each travelled from its initial value
#   (= 128 u in fp16, 16 u in bf16).  The same perturbation moved mlp
#   tensors by <= 1.9 % of their travel and transformer ones by <= 3.8 %;
#   every wrong procedure by >= 95 % (or changed the scale trajectory).  The
#   cnn is not covered: it moved up to 28 x the tolerance.
LOSS_UNITS = 4
TRAVEL_FRACTION = 1.0 / 16

# Elements without a true gradient (nograd.py) end the run at different
# values in C++ and Python, which changes the rounding of everything they
# touch.  nograd.coupling measures that effect once, Python against Python
# with their noise drawn again; the C++ run is another draw, so each tensor
# may differ by this multiple of the measured effect on top of its tolerance.
COUPLING_FACTOR = 4

TOLERANCES = {
    "fp32": Tolerance(loss_rel=1e-5, elem_rtol=1e-5, elem_atol_frac=1e-6),
    "fp16": Tolerance(loss_rel=LOSS_UNITS * UNIT_ROUNDOFF["fp16"], travel_rel=TRAVEL_FRACTION),
    "bf16": Tolerance(loss_rel=LOSS_UNITS * UNIT_ROUNDOFF["bf16"], travel_rel=TRAVEL_FRACTION),
    "o2": Tolerance(loss_rel=LOSS_UNITS * UNIT_ROUNDOFF["o2"], travel_rel=TRAVEL_FRACTION),
    "o3": Tolerance(loss_rel=LOSS_UNITS * UNIT_ROUNDOFF["o3"], travel_rel=TRAVEL_FRACTION),
    # FP8: the 8-bit GEMMs are replayed by torchao's own kernels (bit for bit
    # on the CPU, docs/fp8.md); what rounds besides them is bf16 autocast's.
    **{p: Tolerance(loss_rel=LOSS_UNITS * UNIT_ROUNDOFF["bf16"], travel_rel=TRAVEL_FRACTION)
       for p in ("fp8_tensorwise", "fp8_rowwise", "fp8_delayed")},
    # MXFP8: the MX GEMMs replayed by torchao's own casts, the rest in float32.
    "mxfp8": Tolerance(loss_rel=1e-5, elem_rtol=1e-5, elem_atol_frac=1e-6),
    # NVFP4 likewise: torchao's casts, the recorded rounding stream replayed.
    "nvfp4": Tolerance(loss_rel=1e-5, elem_rtol=1e-5, elem_atol_frac=1e-6),
    # Blockwise likewise: torchao's torch reference quantizers, the rest in float32.
    "fp8_blockwise": Tolerance(loss_rel=1e-5, elem_rtol=1e-5, elem_atol_frac=1e-6),
}


@dataclass(frozen=True)
class Relaxed:
    """Elements of one end-of-run tensor compared with `bound` instead of
    the precision's tolerance (nograd.py finds them; math.inf: not
    compared, only their non-finite values are)."""
    mask: torch.Tensor  # bool, the tensor's shape
    bound: float        # allowed |Python - C++| per element
    what: str           # why, for the messages
    kind: str = ""      # which bound, for the case line: "AdamW drift bounds"


@dataclass
class Mismatch:
    case: str
    step: str     # "3", or "final (after step 11)"
    tensor: str   # "loss", "scale", "skipped", "model0.fc1.weight", ...
    detail: str

    def __str__(self) -> str:
        return f"MISMATCH {self.case}: step {self.step}: {self.tensor}: {self.detail}"


@dataclass
class CaseReport:
    case: str
    precision: str
    steps: int
    mismatches: list
    max_loss_rel: float = 0.0
    # The worst final tensor's deviation as a fraction of what its tolerance
    # allows (<= 1 passes): fp32 elementwise |d| / (rtol|cpp| + atol), fp16 /
    # bf16 ||d|| / (k u ||cpp - initial|| + floor).
    max_tensor_dev: float = 0.0
    tensors: int = 0
    skipped_steps: tuple = ()
    final_scale: float = 1.0
    # Elements without a true gradient, for the case line: "tensor[slice]",
    # with " max|diff| <= bound" where compared with a derived bound.
    no_grad: list = field(default_factory=list)
    bounds: str = ""   # Relaxed.kind of the compared elements
    # Tensors that pass only thanks to the coupling term: "name plain_dev".
    widened: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    @property
    def exact(self) -> bool:
        """Every compared value equal on both sides: no loss, scale, skip or
        tensor element differs (a deviation of 0 is a difference of 0)."""
        return self.ok and self.max_loss_rel == 0.0 and self.max_tensor_dev == 0.0

    def summary(self, tol: Tolerance) -> str:
        verdict = "ok      " if self.ok else "MISMATCH"
        skips = ",".join(str(s) for s in self.skipped_steps) or "-"
        line = (f"{verdict} {self.case:<58} steps {self.steps:>3}  loss_rel {self.max_loss_rel:.1e} "
                f"(tol {tol.loss_rel:.1e})  {self.tensors} tensors at {self.max_tensor_dev:.3f} of tol"
                f"  skipped [{skips}]  final_scale {self.final_scale:g}")
        if self.no_grad:
            line += (f"  no true gradient: {', '.join(self.no_grad)}" + (f" ({self.bounds})" if self.bounds else "")
                     + "; their optimizer state not compared")
        if self.widened:
            line += f"; passing by the coupling allowance only: {', '.join(self.widened)}"
        if self.exact:
            line += "  bitwise"
        return line


def _same_float(a: float, b: float) -> bool:
    """Equal as values: inf == inf (same sign), nan == nan."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def loss_rel(py: float, cpp: float) -> float:
    """|py - cpp| / |cpp|; 0 when both are the same non-finite value, inf
    when only one is finite."""
    if not (math.isfinite(py) and math.isfinite(cpp)):
        return 0.0 if _same_float(py, cpp) else math.inf
    if py == cpp:
        return 0.0
    return abs(py - cpp) / max(abs(cpp), 1e-30)


def _loss_detail(py: float, cpp: float, rel: float, tol: Tolerance) -> str:
    both = f"{py:.9g} (Python) vs {cpp:.9g} (C++)"
    if math.isfinite(py) and math.isfinite(cpp):
        return f"{both}, relative {rel:.3g} > {tol.loss_rel:.3g}"
    # No relative error between an inf and a NaN or a finite value: it is
    # the kind of value that differs.
    return f"{both} (a non-finite loss must be the same value on both sides)"


def _fmt_index(t: torch.Tensor, flat: int) -> str:
    if t.dim() == 0:
        return "[]"
    idx = []
    for size in reversed(t.shape):
        idx.append(flat % size)
        flat //= size
    return "[" + ",".join(str(i) for i in reversed(idx)) + "]"


def compare_tensor(name: str, py: torch.Tensor, cpp: torch.Tensor, initial: torch.Tensor | None,
                   tol: Tolerance, skip: torch.Tensor | None = None,
                   coupled: torch.Tensor | None = None) -> tuple[str | None, float]:
    """(problem or None, deviation in units of the tolerance: <= 1 passes).
    `skip`: a bool mask of elements left to compare_relaxed (their
    non-finite values are still checked here).  `coupled`: nograd.coupling's
    Python - Python' for this tensor; COUPLING_FACTOR x its size (largest
    element, or norm for the travel rule) is added to what is allowed."""
    if tuple(py.shape) != tuple(cpp.shape):
        return f"shape {tuple(py.shape)} (Python) vs {tuple(cpp.shape)} (C++)", math.inf
    if py.dtype != cpp.dtype:
        return f"dtype {py.dtype} (Python) vs {cpp.dtype} (C++)", math.inf
    if py.numel() == 0:
        return None, 0.0
    if not (cpp.is_floating_point() or cpp.is_complex()):
        diff = (py != cpp).reshape(-1)
        if bool(diff.any()):
            i = int(diff.nonzero()[0])
            return (f"differs at {_fmt_index(cpp, i)}: {py.reshape(-1)[i].item()} (Python) vs "
                    f"{cpp.reshape(-1)[i].item()} (C++) (integer tensors must match exactly)"), math.inf
        return None, 0.0
    a = py.detach().double().reshape(-1)
    b = cpp.detach().double().reshape(-1)
    fa, fb = torch.isfinite(a), torch.isfinite(b)
    # Non-finite values must sit in the same places with the same value.
    bad = (fa != fb) | (~fb & ~(a == b) & ~(torch.isnan(a) & torch.isnan(b)))
    if bool(bad.any()):
        i = int(bad.nonzero()[0])
        return (f"non-finite values differ at {_fmt_index(cpp, i)}: {a[i].item()!r} (Python) vs "
                f"{b[i].item()!r} (C++)"), math.inf
    sel = fb if skip is None else fb & ~skip.reshape(-1)
    if not bool(sel.any()):
        return None, 0.0
    at = sel.nonzero().reshape(-1)  # positions in the whole tensor, for the messages
    c = None
    if coupled is not None and tuple(coupled.shape) == tuple(cpp.shape):
        c = coupled.detach().double().reshape(-1)[sel].nan_to_num(0.0, 0.0, 0.0)
    if tol.elem_rtol:
        extra = COUPLING_FACTOR * float(c.abs().max()) if c is not None else 0.0
        return _compare_elementwise(cpp, a[sel], b[sel], at, tol, extra)
    ref = initial.detach().double().reshape(-1)[sel] if initial is not None else None
    extra = COUPLING_FACTOR * float(c.norm()) if c is not None else 0.0
    return _compare_travel(cpp, a[sel], b[sel], ref, at, tol, extra)


def _compare_elementwise(cpp: torch.Tensor, a, b, at, tol: Tolerance, extra: float) -> tuple[str | None, float]:
    d = (a - b).abs()
    allowed = tol.elem_rtol * b.abs() + tol.elem_atol_frac * float(b.abs().max()) + extra
    ratio = d / allowed.clamp_min(1e-300)
    worst = int(ratio.argmax())
    dev = float(ratio[worst])
    if dev > 1.0:
        return (f"max deviation at {_fmt_index(cpp, int(at[worst]))}: {a[worst].item():.9g} (Python) vs "
                f"{b[worst].item():.9g} (C++), |diff| {d[worst].item():.3g} > allowed "
                f"{allowed[worst].item():.3g} (rtol {tol.elem_rtol:g}, atol {tol.elem_atol_frac:g}*max|C++|"
                + (f" + {extra:.3g} coupling" if extra else "") + ")"), dev
    return None, dev


def _compare_travel(cpp: torch.Tensor, a, b, ref, at, tol: Tolerance, extra: float) -> tuple[str | None, float]:
    d = (a - b).abs()
    travel = float((b - (ref if ref is not None else torch.zeros_like(b))).norm())
    allowed = tol.travel_rel * travel + tol.floor_rel * float(b.norm()) + extra
    err = float(d.norm())
    dev = err / allowed if allowed > 0 else (0.0 if err == 0 else math.inf)
    if dev > 1.0:
        worst = int(d.argmax())
        return (f"||Python - C++|| {err:.3g} > {allowed:.3g} = {tol.travel_rel:.2e} x distance travelled "
                f"{travel:.3g} (+{tol.floor_rel:g} x ||C++||" + (f" + {extra:.3g} coupling" if extra else "")
                + f"); worst element {_fmt_index(cpp, int(at[worst]))}: "
                f"{a[worst].item():.9g} (Python) vs {b[worst].item():.9g} (C++)"), dev
    return None, dev


def compare_relaxed(py: torch.Tensor, cpp: torch.Tensor, r: Relaxed) -> tuple[str | None, float]:
    """The elements r.mask of one tensor against r.bound (compare_tensor has
    checked shapes and non-finite values); deviation in units of the bound."""
    if math.isinf(r.bound):
        return None, 0.0
    if math.isnan(r.bound):
        raise ValueError(f"{r.what}: the bound was never measured (nograd.envelope)")
    m = r.mask.reshape(-1) & torch.isfinite(cpp.detach()).reshape(-1)
    if not bool(m.any()):
        return None, 0.0
    a, b = py.detach().double().reshape(-1)[m], cpp.detach().double().reshape(-1)[m]
    d = (a - b).abs()
    worst = int(d.argmax())
    dev = float(d[worst]) / r.bound if r.bound > 0 else (0.0 if float(d[worst]) == 0 else math.inf)
    if dev > 1.0:
        at = int(m.nonzero().reshape(-1)[worst])
        return (f"element {_fmt_index(cpp, at)}: {a[worst].item():.9g} (Python) vs {b[worst].item():.9g} (C++), "
                f"|diff| {d[worst].item():.3g} > {r.bound:.3g} ({r.what})"), dev
    return None, dev


def fmt_mask(mask: torch.Tensor) -> str:
    """Which elements, as flat index ranges: "[32:64]" ("flat[...]" for a
    tensor of more than one dimension)."""
    idx = mask.reshape(-1).nonzero().reshape(-1).tolist()
    runs, start = [], None
    for j, i in enumerate(idx):
        if start is None:
            start = i
        if j + 1 == len(idx) or idx[j + 1] != i + 1:
            runs.append(f"{start}:{i + 1}")
            start = None
    text = ",".join(runs) if len(runs) <= 3 else f"{len(idx)} elements in {len(runs)} runs"
    return ("flat[" if mask.dim() > 1 else "[") + text + "]"


def _compare_final(rep: CaseReport, step: str, label: str, py_t, cpp_t, initial, tol: Tolerance,
                   relaxed: Relaxed | None, coupled: torch.Tensor | None) -> None:
    """One end-of-run tensor: the ordinary comparison (widened by the
    measured coupling), and the relaxed one for the elements `relaxed`
    names; both noted for the case line."""
    usable = relaxed is not None and tuple(relaxed.mask.shape) == tuple(cpp_t.shape) == tuple(py_t.shape)
    skip = relaxed.mask if usable else None
    problem, dev = compare_tensor(label, py_t, cpp_t, initial, tol, skip, coupled)
    if coupled is not None and problem is None:
        plain_dev = compare_tensor(label, py_t, cpp_t, initial, tol, skip)[1]
        if plain_dev > 1.0:
            rep.widened.append(f"{label.split(' ')[-1].strip('()')} ({plain_dev:.2g} x tol)")
    rep.tensors += 1
    if math.isfinite(dev):
        rep.max_tensor_dev = max(rep.max_tensor_dev, dev)
    if problem:
        rep.mismatches.append(Mismatch(rep.case, step, label, problem))
    if not usable:
        return
    problem, dev = compare_relaxed(py_t, cpp_t, relaxed)
    if math.isfinite(relaxed.bound):
        rep.bounds = relaxed.kind
        rep.no_grad.append(f"{label}{fmt_mask(relaxed.mask)} {dev * relaxed.bound:.2g} "
                           f"{'<=' if dev <= 1.0 else '>'} {relaxed.bound:.2g}")
    else:  # optimizer state "optimizer_state[i] (model0.x:exp_avg)": name its parameter once
        param = label.split(" (")[-1].rstrip(")").rsplit(":", 1)[0] + fmt_mask(relaxed.mask)
        if not any(n.split(" ")[0] == param for n in rep.no_grad):
            rep.no_grad.append(param)
    if problem:
        rep.mismatches.append(Mismatch(rep.case, step, label, problem))


def _compare_trajectory(rep: CaseReport, py, cpp, tol: Tolerance) -> None:
    """Step by step: the first step that disagrees is where the procedures
    part."""
    case = rep.case
    for i in range(rep.steps):
        if py.skipped[i] != cpp.skipped[i]:
            rep.mismatches.append(Mismatch(case, str(i), "skipped",
                                           f"Python {'skipped' if py.skipped[i] else 'stepped'}, "
                                           f"C++ {'skipped' if cpp.skipped[i] else 'stepped'} (must match exactly)"))
        if not _same_float(py.scale[i], cpp.scale[i]):
            rep.mismatches.append(Mismatch(case, str(i), "scale",
                                           f"{py.scale[i]:g} (Python) vs {cpp.scale[i]:g} (C++) (must match exactly)"))
        r = loss_rel(py.loss[i], cpp.loss[i])
        if math.isfinite(r):
            rep.max_loss_rel = max(rep.max_loss_rel, r)
        if r > tol.loss_rel:
            rep.mismatches.append(Mismatch(case, str(i), "loss", _loss_detail(py.loss[i], cpp.loss[i], r, tol)))


def first_difference(case: str, py, cpp) -> Mismatch:
    """Where a replay that agrees within tolerance stops being bit for bit
    (check --bitwise): the earliest step whose loss differs, else the first
    final tensor with an element that differs."""
    for step, (a, b) in enumerate(zip(py.loss, cpp.loss)):
        if not _same_float(a, b):
            return Mismatch(case, str(step), "loss", f"{a!r} (Python) vs {b!r} (C++): not bit for bit")
    final = f"final (after step {len(cpp.loss) - 1})"
    pairs = [(f"model{k}.{n}", pf[n], cf[n]) for k, (pf, cf) in enumerate(zip(py.final, cpp.final))
             for n in cf if n in pf]
    pairs += [(f"{cn} ({pn})", pt, ct) for (pn, pt), (cn, ct) in zip(py.optimizer_state, cpp.optimizer_state)]
    for name, a, b in pairs:
        differ = int((~((a == b) | (a.isnan() & b.isnan()))).sum())
        if differ:
            return Mismatch(case, final, name, f"{differ} of {b.numel()} elements differ: not bit for bit")
    return Mismatch(case, "-", "-", "not bit for bit")


def compare_runs(case: str, precision: str, py, cpp, tol: Tolerance | None = None,
                 relaxed: dict | None = None, coupled: dict | None = None) -> CaseReport:
    """Every difference between the Python run `py` and the C++ run `cpp`
    (replay.Run values), earliest step first.  `relaxed`: {final tensor name
    ("model0.x.bias", or the Python optimizer-state name): Relaxed}, the
    elements without a true gradient (nograd.relaxations); `coupled`: {same
    names: tensor}, what their noise moves in the rest (nograd.coupling)."""
    tol = tol or TOLERANCES[precision]
    relaxed, coupled = relaxed or {}, coupled or {}
    steps = len(cpp.loss)
    rep = CaseReport(case=case, precision=precision, steps=steps, mismatches=[],
                     skipped_steps=tuple(i for i, s in enumerate(cpp.skipped) if s),
                     final_scale=cpp.scale[-1] if cpp.scale else 1.0)
    for key in ("loss", "scale", "skipped"):
        if len(getattr(py, key)) != steps:
            rep.mismatches.append(Mismatch(case, "-", key, f"{len(getattr(py, key))} steps (Python) vs {steps} (C++)"))
    if rep.mismatches:
        return rep
    _compare_trajectory(rep, py, cpp, tol)

    final = f"final (after step {steps - 1})"
    if len(py.final) != len(cpp.final):
        rep.mismatches.append(Mismatch(case, final, "models", f"{len(py.final)} (Python) vs {len(cpp.final)} (C++)"))
    for k, (pf, cf) in enumerate(zip(py.final, cpp.final)):
        init = py.initial[k] if py.initial and k < len(py.initial) else {}
        missing = sorted(set(cf) ^ set(pf))
        if missing:
            rep.mismatches.append(Mismatch(case, final, f"model{k}", f"tensors present on one side only: {missing}"))
        for name in (n for n in cf if n in pf):
            key = f"model{k}.{name}"
            _compare_final(rep, final, key, pf[name], cf[name], init.get(name), tol, relaxed.get(key),
                           coupled.get(key))
    if len(py.optimizer_state) != len(cpp.optimizer_state):
        rep.mismatches.append(Mismatch(case, final, "optimizer_state",
                                       f"{len(py.optimizer_state)} tensors (Python) vs "
                                       f"{len(cpp.optimizer_state)} (C++)"))
    else:
        for (pname, pt), (cname, ct) in zip(py.optimizer_state, cpp.optimizer_state):
            _compare_final(rep, final, f"{cname} ({pname})", pt, ct, None, tol, relaxed.get(pname),
                           coupled.get(pname))
    return rep
