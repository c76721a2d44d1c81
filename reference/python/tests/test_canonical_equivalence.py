"""The C++ real-architecture families against the canonical Python modules
(reference/python/canonical.py: transformers' and torchvision's own classes).

For each family, with AMPBENCH_MODEL_PROBE naming build/harness/ampbench_model_probe
(the CTests models.equivalence_<family> set it; without it these tests skip):

* C++ -> Python: the C++ initial state loads into the canonical module by
  name (strict), in the same parameter order, and one float32 forward and
  backward on the C++ batch gives the same loss and the same gradient for
  every parameter, bit for bit (FP32_REL).
* Python -> C++: the canonical module's state (its initialisation moved by
  noise, so that no gradient is zero) loads into the C++ module by name; the
  C++ side reads back every tensor bit for bit and computes the same loss and
  the same, nonzero, gradients.
* Initialisation: the C++ module draws each tensor as the canonical module's
  initialiser does: the same constant tensors (zeros, ones: zero-initialised
  residual norms, biases, LayerNorm), the same spread for the random ones.

Run one family: pytest reference/python/tests/test_canonical_equivalence.py -k gpt2
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import json
import pytest
import torch

from reference.python import canonical
from reference.python.models import training_loss
from reference.python.replay import torch_load

PROBE = os.environ.get("AMPBENCH_MODEL_PROBE", "")
pytestmark = pytest.mark.skipif(not PROBE, reason="AMPBENCH_MODEL_PROBE names no ampbench_model_probe binary")

# float32 forward and backward of the same function with the same kernels,
# the autograd graph built in the same order: bit for bit (measured on all
# four).  A C++ module that computes the same ops but creates them in
# another order (three uses of one tensor written as arguments of one call,
# which GCC evaluates right to left) adds that tensor's gradients in another
# order: 5.6e-8 (BERT) and 2.2e-7 (GPT-2) relative, which shows here, and
# which ResNet-like networks amplify in training.
FP32_REL = 0.0

SIZES = {
    "gpt2": {"batch": 3, "seq": 12, "d_model": 32, "heads": 4, "ffn": 64, "layers": 2, "vocab": 96},
    "bert": {"batch": 4, "seq": 12, "d_model": 32, "heads": 4, "ffn": 64, "layers": 2, "vocab": 96, "classes": 5},
    "resnet": {"batch": 4, "depth": 10, "image": 32, "classes": 5},
    # Depth 10 has basic blocks, one per stage; depth 50 has the bottleneck
    # (which of its convolutions strides) and stages of several blocks
    # (only the first strides or projects); a stride on the wrong convolution
    # samples other pixels. 64x64 keeps the last stage 2x2: at 32x32 its
    # BatchNorms see 2 values per channel and the float32 gradients of the
    # two sides differed by 6e-5 (measured). About 130 s, most of it autocast.
    # channels_last, as the architectures suite runs ResNet-50: NHWC weights
    # and inputs on both sides.
    "resnet50": {"batch": 2, "depth": 50, "image": 64, "classes": 5, "channels_last": True},
    "vit": {"batch": 4, "image": 16, "patch": 4, "d_model": 32, "heads": 4, "ffn": 64, "layers": 2, "classes": 5},
}
FAMILIES = sorted(SIZES)  # the cases, named by family (-k resnet runs both ResNets)


def family_of(case: str) -> str:
    return {"resnet50": "resnet"}.get(case, case)


def make_canonical(case: str) -> torch.nn.Module:
    """The canonical module of a case, its weights in the layout the harness
    trains them in (reference/python/models.make_model)."""
    model = canonical.make(family_of(case), SIZES[case])
    return model.to(memory_format=torch.channels_last) if SIZES[case].get("channels_last") else model


def run_probe(tmp: Path, case: str, *extra: str) -> Path:
    out = tmp / f"{case}-probe"
    cmd = [PROBE, "--family", family_of(case), "--sizes", json.dumps(SIZES[case]), "--seed", "3", "--out", str(out),
           *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


def python_step(model, inputs, labels, autocast: str | None = None):
    model.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=AUTOCAST.get(autocast, torch.bfloat16), enabled=autocast is not None):
        out = model(inputs)
        loss = training_loss(out, labels)
    loss.backward()
    return loss.detach(), {n: p.grad for n, p in model.named_parameters()}, out.detach()


def rel(a: torch.Tensor, b: torch.Tensor, floor: float = 0.0) -> float:
    """Relative L2 difference; `floor` bounds the denominator from below."""
    denom = max(b.double().norm().item(), floor)
    diff = (a.double() - b.double()).norm().item()
    return diff / denom if denom > 0 else diff


def assert_same_step(out: Path, model, what: str, autocast: str | None = None):
    result = torch_load(out / "result.pt")
    inputs, labels = torch_load(out / "inputs.pt"), torch_load(out / "labels.pt")
    loss, grads, output = python_step(model, inputs, labels, autocast)
    assert torch.equal(result["output"], output), f"{what}: the outputs differ"
    cpp_grads = {k[len("grad."):]: v for k, v in result.items() if k.startswith("grad.")}
    assert list(cpp_grads) == list(grads), f"{what}: parameter order differs"
    grads = {n: g if g is not None else torch.zeros_like(cpp_grads[n]) for n, g in grads.items()}
    # A gradient that is zero in exact arithmetic (attention's key bias:
    # softmax ignores a per-query constant) is rounding noise on both sides;
    # it is measured against 1% of the largest gradient instead of itself.
    floor = 1e-2 * max(g.double().norm().item() for g in grads.values())
    worst = max((rel(cpp_grads[n], g, floor), n) for n, g in grads.items())
    assert rel(result["loss"], loss) <= FP32_REL, f"{what}: loss C++ {result['loss'].item()} Python {loss.item()}"
    assert worst[0] <= FP32_REL, f"{what}: gradient of {worst[1]} differs by {worst[0]:.2e} (relative L2)"
    print(f"{what}: loss rel {rel(result['loss'], loss):.1e}, worst gradient rel {worst[0]:.1e} ({worst[1]})")
    return grads


@pytest.mark.parametrize("family", FAMILIES)
def test_cpp_state_trains_the_canonical_module_alike(tmp_path, family):
    out = run_probe(tmp_path, family)
    model = make_canonical(family)
    model.load_state_dict(torch_load(out / "state.pt"), strict=True)
    assert_same_step(out, model, f"{family} C++ -> Python")


def moved_canonical(family: str, tmp_path: Path):
    """(model, its state as a file): the canonical module away from its
    initialisation, where zero-initialised layers (ViT's head, the residual
    BatchNorms) would leave most gradients zero."""
    torch.manual_seed(11)
    model = make_canonical(family)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    path = tmp_path / "state.pt"
    torch.save(canonical.plain_state_dict(model), path)
    return model, path


@pytest.mark.parametrize("autocast", sorted(AUTOCAST))
@pytest.mark.parametrize("family", FAMILIES)
def test_the_autocast_step_is_the_canonical_modules(tmp_path, family, autocast):
    """The same step under CPU autocast, bit for bit too: autocast picks
    each op's precision, so a layer that reaches the same result another way
    in float32 can round otherwise here (LibTorch's Linear module adds a 3-D
    input's bias after the matmul in the bias's float32, where F.linear's
    fused addmm adds it in the gemm: ViT's MLP differed by a bfloat16 ulp)."""
    model, path = moved_canonical(family, tmp_path)
    out = run_probe(tmp_path, family, "--load", str(path), "--autocast", autocast)
    assert_same_step(out, model, f"{family} {autocast} autocast", autocast)


@pytest.mark.parametrize("family", FAMILIES)
def test_canonical_state_loads_into_cpp_by_name(tmp_path, family):
    model, path = moved_canonical(family, tmp_path)
    state = torch_load(path)
    out = run_probe(tmp_path, family, "--load", str(path))
    unused = set((out / "unused_keys.txt").read_text().split())
    assert unused == canonical.EXTRA_STATE_KEYS[family_of(family)]
    back = torch_load(out / "state.pt")
    for name, t in back.items():
        assert torch.equal(t, state[name]), f"{name} did not round-trip"
    grads = assert_same_step(out, model, f"{family} Python -> C++")
    zero = [n for n, g in grads.items() if not bool(g.abs().sum() > 0)]
    assert not zero, f"gradients all zero, compared trivially: {zero}"


def _constant(t: torch.Tensor):
    flat = t.flatten()
    return flat[0].item() if flat.numel() and bool((flat == flat[0]).all()) else None


@pytest.mark.parametrize("family", FAMILIES)
def test_cpp_initialisation_draws_like_the_canonical_module(tmp_path, family):
    cpp = torch_load(run_probe(tmp_path, family) / "state.pt")
    torch.manual_seed(5)
    py = canonical.plain_state_dict(make_canonical(family))
    for name, t in cpp.items():
        ref = py[name]
        if not t.is_floating_point():
            assert torch.equal(t, ref), name
            continue
        assert _constant(t) == _constant(ref), f"{name}: C++ constant {_constant(t)}, canonical {_constant(ref)}"
        if _constant(ref) is None and ref.numel() >= 256:
            ratio = t.float().std().item() / ref.float().std().item()
            assert 0.85 < ratio < 1.15, f"{name}: C++ std / canonical std = {ratio:.3f}"


@pytest.mark.parametrize("family", FAMILIES)
def test_registered_flops_and_parameters_match_a_count_of_the_canonical_module(tmp_path, family):
    """The C++ registration's analytic forward FLOPs (harness/models/flops.h:
    matrix-unit work, 2 per multiply-add) against torch.utils.flop_counter
    counting the canonical module's own forward, which counts exactly the
    matrix-unit ops (mm, addmm, bmm, convolution, attention)."""
    registered = json.loads((run_probe(tmp_path, family) / "family.json").read_text())
    sizes = SIZES[family]
    counted = canonical.forward_flops(family_of(family), sizes)
    assert registered["forward_flops_per_sample"] == pytest.approx(counted, rel=1e-9)
    model = make_canonical(family)
    assert registered["parameters"] == sum(p.numel() for p in model.parameters())
