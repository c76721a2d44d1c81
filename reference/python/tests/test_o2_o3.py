"""The oracle's Apex O2 and O3 (workloads.py): a float16 model, float32
masters for O2 with BatchNorm kept float32, and the suite defaults that make
O3's verdict reported rather than required."""

from __future__ import annotations

from pathlib import Path

import torch

from reference.python.bench import SyntheticData, fresh_state
from reference.python.spec import Spec
from reference.python.suite import parse_suite
from reference.python.workloads import STEPS

ROOT = Path(__file__).resolve().parents[3]
TINY = {"batch": 8, "in_features": 8, "hidden": 16, "classes": 4, "channels": 4, "image": 8, "seq": 4,
        "d_model": 8, "heads": 2, "ffn": 8}


def spec(precision: str, model: str = "mlp", optimizer: str = "sgd") -> Spec:
    return Spec(id=f"plain/{model}/{precision}/{optimizer}", workload="plain", model=model, precision=precision,
                optimizer=optimizer, scaler_enabled=precision == "o2", steps=3, sizes=dict(TINY))


def test_o2_keeps_batchnorm_and_the_masters_float32_and_the_rest_float16():
    s = fresh_state(spec("o2", "cnn"), torch.device("cpu"))
    for name, p in s.models[0].named_parameters():
        assert p.dtype == (torch.float32 if name.startswith("bn") else torch.float16), name
    assert all(m.dtype == torch.float32 for m in s.masters[0].params)
    assert s.optimizers[0].param_groups[0]["params"] == s.masters[0].params


def test_after_o2_steps_the_model_is_the_masters_rounded():
    sp = spec("o2")
    s = fresh_state(sp, torch.device("cpu"))
    data = SyntheticData(sp, torch.device("cpu"))
    for step in range(3):
        s.step_index = step
        STEPS["plain"](s, [data.host_to_device(step)])
    for p, m in zip(s.models[0].parameters(), s.masters[0].params):
        assert torch.equal(p, m.half()) and p.grad is None


def test_o3_trains_the_float16_parameters_themselves():
    s = fresh_state(spec("o3"), torch.device("cpu"))
    assert not s.masters and not s.scaler.is_enabled()
    assert s.optimizers[0].param_groups[0]["params"][0] is next(s.models[0].parameters())


def test_the_smoke_suite_reports_o3_and_requires_o2():
    suite = parse_suite((ROOT / "suites/smoke.json").read_text(), "smoke.json", "cpu")
    o2 = [c for c in suite.cases if c.precision == "o2"]
    o3 = [c for c in suite.cases if c.precision == "o3"]
    assert o2 and all(c.expect == "pass" and c.scaler_enabled for c in o2)
    assert o3 and all(c.expect == "report" and not c.scaler_enabled for c in o3)


def test_the_python_decoder_is_causal_and_named_as_the_cpp_one():
    from reference.python.models import make_model
    sizes = dict(TINY, seq=6, d_model=8, heads=2, ffn=16, layers=2)
    model = make_model("decoder", sizes)
    names = [n for n, _ in model.named_parameters()]
    assert names[0] == "blocks.0.ln1.weight" and names[-3:] == ["ln_f.bias", "head.weight", "head.bias"]
    x = torch.randn(2, 6, 8)
    y = x.clone()
    y[:, 4] += 1
    block = model.blocks[0]
    assert torch.equal(block(x)[:, :4], block(y)[:, :4])


def test_the_large_suite_is_skipped_off_cuda_with_the_cpp_reason():
    from reference.python.bench import skip_reason
    suite = parse_suite((ROOT / "suites/large.json").read_text(), "large.json", "cpu")
    assert suite.cases and all(c.gpu_sized for c in suite.cases)
    assert skip_reason(suite.cases[0]).startswith('sized for a GPU (the suite is "gpu_sized"): on cpu')
    assert {c.model for c in suite.cases} == {"decoder", "mlp", "cnn"}


def test_a_cuda_graph_case_is_named_plus_graph_and_skipped_by_the_python_reference():
    from reference.python.bench import skip_reason
    text = (ROOT / "suites/throughput.json").read_text()
    suite = parse_suite(text, "throughput.json", "cpu")
    graphed = [c for c in suite.cases if c.cuda_graph]
    assert graphed and all(c.id.split("@")[0].endswith("+fused+graph") for c in graphed)
    assert skip_reason(graphed[0]) == "CUDA-graph capture needs a CUDA device, not cpu"


class BatchNormAct(torch.nn.BatchNorm1d):
    """timm's BatchNormAct2d in miniature: a BatchNorm subclass with its own
    forward, whose scripted file keeps only its own class name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(torch.nn.functional.batch_norm(x, self.running_mean, self.running_var, self.weight,
                                                         self.bias, self.training, 0.1, self.eps))


def test_o2_keeps_a_scripted_batchnorm_subclass_float32_but_not_instancenorm():
    from reference.python.master_weights import cast_model
    net = torch.jit.script(torch.nn.Sequential(BatchNormAct(3), torch.nn.InstanceNorm1d(3, affine=True,
                                                                                           track_running_stats=True),
                                               torch.nn.Linear(4, 4)))
    cast_model(net, keep_batchnorm_fp32=True)
    dtypes = {name: p.dtype for name, p in net.named_parameters()}
    assert dtypes == {"0.weight": torch.float32, "0.bias": torch.float32, "1.weight": torch.float16,
                      "1.bias": torch.float16, "2.weight": torch.float16, "2.bias": torch.float16}
