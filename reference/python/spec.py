"""CaseSpec in Python: the fields of harness/spec/case_spec.h the workloads
read, from a dump's case.json ("spec") or from a suite file (suite.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

WORKLOADS = ("plain", "clip_norm", "clip_value", "accumulation", "penalty", "multi")
# Negative controls: each one known AMP mistake (harness/spec/control.h).
VARIANTS = {
    "plain": ("correct", "no_scaler", "fresh_scaler_each_step", "resume_without_scaler_state",
              "fp8_frozen_scales", "fp8_input_amax_from_weight", "fp8_e4m3_gradients", "fp8_history_not_rolled",
              "fp8_no_saturation", "fp8_rowwise_unrounded_scales", "resume_without_fp8_state", "mxfp8_ceil_scales", "mxfp8_block_16", "mxfp8_e8m0_wrap",
              "nvfp4_same_stream", "nvfp4_no_hadamard", "nvfp4_block_32", "nvfp4_no_tensor_scale", "fp8_blockwise_tile_64",
              "fp8_blockwise_tensor_amax"),
    "clip_norm": ("correct", "clip_before_unscale"),
    "clip_value": ("correct", "clip_before_unscale"),
    "accumulation": ("correct", "step_every_microbatch"),
    "penalty": ("correct", "penalty_from_scaled_grads"),
    "multi": ("correct", "update_per_optimizer"),
}
MODELS = ("mlp", "cnn", "transformer", "decoder", "gpt2", "bert", "resnet", "vit", "linear_stack")
PRECISIONS = ("fp32", "fp16", "bf16", "tf32", "o2", "o3", "fp8_tensorwise", "fp8_rowwise", "fp8_delayed", "mxfp8",
              "nvfp4", "fp8_blockwise")
# The FP8 precisions (harness/core/precision.h): converted Linear layers' GEMMs
# in 8 bits, the rest under bf16 autocast, float32 weights, no scaler.
FP8_PRECISIONS = ("fp8_tensorwise", "fp8_rowwise", "fp8_delayed", "mxfp8", "nvfp4", "fp8_blockwise")
# Apex O2 and O3: a float16 model (core/precision.h); O2 with float32 master weights.
HALF_MODEL_PRECISIONS = ("o2", "o3")
# tf32 (harness/core/precision.h): float32 tensors, TF32 tensor-core math for
# CUDA matmuls and convolutions; the suite expands it as the C++ loader does,
# but the Python reference neither times nor replays it (NOT_RUN_REASON).
CUDA_ONLY_PRECISIONS = ("tf32",)
NOT_RUN_REASON = {"tf32": "the Python reference does not run tf32 (CUDA TF32 tensor-core math) yet"}
# The Python bench times what a suite file says; an FP8 case's recipe is
# replayed from its dump (check.py), where the C++ run wrote it, not timed.
BENCH_NOT_RUN_REASON = {**NOT_RUN_REASON,
                        **{p: "the Python bench does not time FP8 recipes (the cross-check replays them from a "
                              "dump with torchao's Float8Linear and the delayed-scaling reference)"
                           for p in FP8_PRECISIONS}}
# A dump's "fp8" fault flags, as the correct recipe leaves them.
FP8_CORRECT_FAULTS = {"saturate": True, "e4m3_gradients": False, "freeze_scales": False,
                      "input_amax_from_weight": False, "roll_history": True}
# ... and the flags older dumps lack, read with their default: MX's (an MX
# scale mode of "ceil" is a mistake too) and rowwise's power-of-two scales.
MX_CORRECT_FAULTS = {"mx_block": 32, "mx_clamp_exponent": True, "pow2_scales": True}
# ... and its NVFP4 ones.
NVFP4_CORRECT_FAULTS = {"nvfp4_block": 16, "nvfp4_tensor_scale": True, "nvfp4_hadamard": True,
                        "nvfp4_fresh_stream": True}
# ... and its blockwise one.
BLOCKWISE_CORRECT_FAULTS = {"blockwise_tile": 128, "blockwise_own_amax": True}
OPTIMIZERS = ("sgd", "adam", "adamw")
# torch.optim's keyword arguments (harness/optim/impl.h Settings): SGD's
# momentum is the harness's 0.9, AdamW's weight decay 0.01.
DEFAULT_OPTIMIZER_SETTINGS = {
    "sgd": {"momentum": 0.9, "dampening": 0.0, "nesterov": False, "weight_decay": 0.0},
    "adam": {"betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0, "amsgrad": False},
    "adamw": {"betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01, "amsgrad": False},
}
LOSSES = ("cross_entropy", "mse", "bce_with_logits")  # harness/spec/loss.h
DEFAULT_LOSS = {"kind": "cross_entropy", "label_smoothing": 0.0}
DEFAULT_MULTI_COEFFICIENTS = [2.0, 3.0, 3.0, -5.0]  # loss0 = loss(a*o0 + b*o1), loss1 = loss(c*o0 + d*o1)
OPTIMIZER_IMPLS = ("loop", "foreach", "fused")  # harness/optim/optimizers.h
SIZE_KEYS = ("batch", "in_features", "hidden", "classes", "channels", "in_channels", "image", "seq", "d_model",
             "heads", "ffn", "layers", "vocab", "depth", "patch", "channels_last")
DEFAULT_SIZES = {"batch": 32, "in_features": 64, "hidden": 128, "classes": 16, "channels": 16,
                 "in_channels": 8, "image": 16, "seq": 16, "d_model": 64, "heads": 4, "ffn": 128, "layers": 1,
                 "vocab": 64, "depth": 18, "patch": 4, "channels_last": 0}
DEFAULT_SCALER = {"init_scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                  "growth_interval": 2000}


class SpecError(ValueError):
    """A spec the reference cannot run (unknown workload, missing field...)."""


@dataclass
class Throughput:
    enabled: bool = True
    warmup_steps: int = 2
    measured_steps: int = 5
    repetitions: int = 3
    input: str = "cached"  # cached | host


@dataclass
class Spec:
    id: str
    workload: str
    model: str
    precision: str
    optimizer: str
    variant: str = "correct"
    optimizer_impl: str = "loop"
    tag: str = ""
    scaler_enabled: bool = False
    device: str = "cpu"
    world_size: int = 1
    steps: int = 10
    seed: int = 1
    lr: float = 0.05
    cosine_schedule: bool = False
    sizes: dict = field(default_factory=lambda: dict(DEFAULT_SIZES))
    iters_to_accumulate: int = 2
    max_norm: float = 1.0
    clip_value: float = 0.05
    loss_multiplier: float = 1.0
    inject_inf_step: int = -1
    inject_inf_optimizer: int = 0  # whose first gradient gets the inf: optimizer i <-> model i
    resume_at: int = -1  # checkpoint and restore before this step (harness/runner/checkpoint.h)
    skip_steps: list = field(default_factory=list)  # [optimizer] -> steps it skips
    scaler: dict = field(default_factory=lambda: dict(DEFAULT_SCALER))
    optimizer_settings: dict = field(default_factory=dict)  # empty: DEFAULT_OPTIMIZER_SETTINGS[optimizer]
    loss: dict = field(default_factory=lambda: dict(DEFAULT_LOSS))
    inject_inf_param: str = ""  # "": the first element of the first gradient; else that whole gradient
    multi_coefficients: list = field(default_factory=lambda: list(DEFAULT_MULTI_COEFFICIENTS))
    # A model given by file: {"path": the TorchScript file, "inputs": [{"kind",
    # "shape", "vocab"}]} (harness/models/scripted.h); None for a family.
    torchscript: dict | None = None
    # FP8 precisions, from a dump: the recipe, the layer choice and the faults
    # (harness/spec/fp8_settings_json.h); None otherwise.
    fp8: dict | None = None
    expect: str = "pass"
    gpu_sized: bool = False  # the suite's "gpu_sized": skipped off CUDA
    cuda_graph: bool = False  # C++ replays a CUDA-graph capture; the reference does not capture
    baseline_id: str = ""
    throughput: Throughput = field(default_factory=Throughput)

    def optimizer_kwargs(self) -> dict:
        """torch.optim keyword arguments of this case's optimizer."""
        o = dict(DEFAULT_OPTIMIZER_SETTINGS[self.optimizer])
        o.update({k: v for k, v in self.optimizer_settings.items() if k in o})
        if "betas" in o:
            o["betas"] = tuple(float(b) for b in o["betas"])
        return o

    def micro_batches(self) -> int:
        """Micro-batches one optimizer step consumes."""
        return self.iters_to_accumulate if self.workload == "accumulation" else 1

    def effective_batch(self) -> int:
        return self.sizes["batch"] * self.micro_batches() * self.world_size

    def model_count(self) -> int:
        """Models, and so optimizers (one per model)."""
        return 2 if self.workload == "multi" else 1

    def validate(self) -> None:
        if self.workload not in WORKLOADS:
            raise SpecError(f"unknown workload '{self.workload}' (known: {', '.join(WORKLOADS)})")
        if self.variant not in VARIANTS[self.workload]:
            raise SpecError(f"unknown variant '{self.variant}' of {self.workload} "
                            f"(known: {', '.join(VARIANTS[self.workload])})")
        if self.model not in MODELS and not self.torchscript:
            raise SpecError(f"unknown model '{self.model}'")
        if self.precision not in PRECISIONS:
            raise SpecError(f"unknown precision '{self.precision}'")
        if self.optimizer not in OPTIMIZERS:
            raise SpecError(f"unknown optimizer '{self.optimizer}'")
        if self.loss.get("kind") not in LOSSES:
            raise SpecError(f"unknown loss '{self.loss.get('kind')}' (known: {', '.join(LOSSES)})")
        if len(self.multi_coefficients) != 4:
            raise SpecError("multi_coefficients: expected 4 numbers")
        if self.optimizer_impl not in OPTIMIZER_IMPLS:
            raise SpecError(f"unknown optimizer_impl '{self.optimizer_impl}' (known: {', '.join(OPTIMIZER_IMPLS)})")
        if self.steps <= 0 or self.iters_to_accumulate <= 0:
            raise SpecError("steps and iters_to_accumulate must be positive")
        if not 0 <= self.inject_inf_optimizer < self.model_count():
            raise SpecError(f"inject_inf_optimizer {self.inject_inf_optimizer}: the {self.workload} workload has "
                            f"{self.model_count()} optimizer(s)")


_DUMP_REQUIRED = ("id", "workload", "variant", "model", "precision", "optimizer", "scaler_enabled",
                  "steps", "lr", "cosine_schedule", "iters_to_accumulate", "max_norm", "clip_value",
                  "loss_multiplier", "inject_inf_step", "skip_steps", "scaler", "sizes")


def _integer(v, key: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise SpecError(f"\"{key}\": expected an integer, got {v!r}")
    return v


def _torchscript(obj) -> dict | None:
    if obj is None:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("path"), str) or not isinstance(obj.get("inputs"), list):
        raise SpecError("\"torchscript\": expected {\"path\": str, \"inputs\": [...]}")
    return obj


def spec_from_dump(obj: dict) -> Spec:
    """The "spec" object of a dump's case.json (harness/runner/case_dump.cpp)."""
    if not isinstance(obj, dict):
        raise SpecError("\"spec\" is not an object")
    missing = [k for k in _DUMP_REQUIRED if k not in obj]
    if missing:
        raise SpecError(f"\"spec\" lacks {', '.join(missing)}")
    sizes = dict(DEFAULT_SIZES)
    sizes.update({k: int(v) for k, v in obj["sizes"].items() if k in SIZE_KEYS})
    scaler = dict(DEFAULT_SCALER)
    scaler.update(obj["scaler"])
    spec = Spec(
        id=obj["id"], workload=obj["workload"], variant=obj["variant"], model=obj["model"],
        precision=obj["precision"], optimizer=obj["optimizer"],
        # Absent from dumps written before it existed: LibTorch's loop.
        optimizer_impl=obj.get("optimizer_impl", "loop"),
        scaler_enabled=bool(obj["scaler_enabled"]), device=obj.get("device", "cpu"),
        steps=int(obj["steps"]), seed=int(obj.get("seed", 1)), lr=float(obj["lr"]),
        cosine_schedule=bool(obj["cosine_schedule"]),
        sizes=sizes, iters_to_accumulate=int(obj["iters_to_accumulate"]),
        max_norm=float(obj["max_norm"]), clip_value=float(obj["clip_value"]),
        loss_multiplier=float(obj["loss_multiplier"]), inject_inf_step=int(obj["inject_inf_step"]),
        # Absent from dumps written before it existed: the inf then went to
        # the first parameter, which is optimizer 0's.
        inject_inf_optimizer=_integer(obj.get("inject_inf_optimizer", 0), "inject_inf_optimizer"),
        resume_at=_integer(obj.get("resume_at", -1), "resume_at"),
        skip_steps=[[int(s) for s in steps] for steps in obj["skip_steps"]], scaler=scaler,
        # Absent from dumps written before they existed: the defaults then in force.
        optimizer_settings=dict(obj.get("optimizer_settings", {})),
        loss=dict(obj.get("loss", DEFAULT_LOSS)),
        inject_inf_param=str(obj.get("inject_inf_param", "")),
        multi_coefficients=[float(v) for v in obj.get("multi_coefficients", DEFAULT_MULTI_COEFFICIENTS)],
        torchscript=_torchscript(obj.get("torchscript")),
        fp8=_fp8(obj.get("fp8"), obj["precision"]),
    )
    spec.validate()
    return spec


def _fp8(obj, precision: str) -> dict | None:
    if precision not in FP8_PRECISIONS:
        if obj is not None:
            raise SpecError(f"\"fp8\": settings for a {precision} case")
        return None
    keys = ("scaling", "history_len", "margin", "amax_compute", "convert_first", "convert_last", *FP8_CORRECT_FAULTS)
    if not isinstance(obj, dict) or any(k not in obj for k in keys):
        raise SpecError(f"\"fp8\": an {precision} case needs its recipe ({', '.join(keys)})")
    return obj


def replay_refusal(spec: Spec) -> str | None:
    """Why the oracle does not replay this dumped case (None: it does)."""
    if spec.precision in NOT_RUN_REASON:
        return NOT_RUN_REASON[spec.precision]
    mx_faulted = spec.fp8 is not None and (any(spec.fp8.get(k, v) != v for k, v in MX_CORRECT_FAULTS.items())
                                           or spec.fp8.get("mx_scale_mode") == "ceil"
                                           or any(spec.fp8.get(k, v) != v for k, v in NVFP4_CORRECT_FAULTS.items())
                                           or any(spec.fp8.get(k, v) != v for k, v in BLOCKWISE_CORRECT_FAULTS.items()))
    if spec.variant == "resume_without_fp8_state":
        return ("an FP8 negative control: its resumed run forgets the delayed recipe's scaling state, and the oracle "
                "runs uninterrupted; the control is judged by the bitwise resume check and the scale audit")
    if spec.fp8 is not None and (mx_faulted or any(spec.fp8[k] != v for k, v in FP8_CORRECT_FAULTS.items())):
        return ("an FP8 negative control: the oracle's recipes (torchao's Float8Linear and emulated MX path, the delayed-scaling "
                "reference) make no FP8 mistakes; the control is judged by its distance from fp32")
    return None
