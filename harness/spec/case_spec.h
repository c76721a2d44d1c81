// CaseSpec: everything needed to run one case, fully resolved from a suite
// file. Plain data; no LibTorch state.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/precision.h"
#include "spec/model_family.h"
#include "optim/impl.h"
#include "spec/control.h"
#include "spec/convergence_settings.h"
#include "spec/device_kind.h"
#include "spec/fp8_settings.h"
#include "spec/implementation.h"
#include "spec/expect.h"
#include "spec/loss.h"

namespace ampbench {

class WorkloadTraits;  // spec/workload_traits.h

struct ScalerSettings {
  double init_scale = 65536.0;
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int growth_interval = 2000;
};

// Tolerances as declared in a suite: multiples of the precision's unit
// roundoff, widened to noise_factor x the measured fp32 run-to-run noise when
// that is larger. The checker resolves them to numbers.
struct ToleranceRule {
  double loss_rel_units = 16;          // per-step |loss - fp32| / |fp32|
  double param_rel_units = 64;         // ||p - p32|| / ||p32 - p_init||
  double optimizer_state_rel_units = 64;
  double final_loss_ratio_units = 16;  // |final/final32 - 1|
  int max_extra_skipped_steps = 2;     // skipped steps the rules below do not explain
  // Leading skips while a fresh scaler calibrates its scale (GradScaler
  // backs off from init_scale until the gradients fit): explained, up to this.
  int max_calibration_skips = 6;
  double noise_factor = 10;
};

// How rounding noise is injected into a perturbed fp32 replica (see
// check/envelope.h): each step's gradients, the initial parameters, or both.
enum class NoiseModel { kGrad, kInit, kGradInit };

// The measured equivalence envelope: every fp32 baseline that a
// mixed-precision case uses is also trained `replicas` times with rounding
// noise of that precision's unit roundoff injected; a case conforms when its
// distance from fp32 stays within max(c x envelope, floor), the floor being
// the ToleranceRule's multiples of u.
struct EnvelopeSettings {
  int replicas = 3;  // 0: no envelope, the floors alone decide
  double c = 4;
  NoiseModel noise = NoiseModel::kInit;
};

// Makes a fp32 run a perturbed replica: each rounding-noise injection
// multiplies values by (1 + u * xi), xi uniform in [-1, 1] from `seed`.
struct Perturbation {
  double unit_roundoff = 0;
  NoiseModel noise = NoiseModel::kGrad;
  std::uint64_t seed = 0;
};

// What each workload's mechanism must do in a correct case, or the case is
// an error naming it (check/engagement.h): a mechanism that never engages
// checks nothing.
struct EngagementRule {
  double clip_norm_min_steps = 1.0 / 3;  // fraction of steps clip_norm must clip
  double clip_value_min_fraction = 1e-3;  // mean fraction of gradient elements clipped
  double penalty_min_ratio = 0.01;        // mean penalty term / task loss
};

enum class InputMode { kCached, kHost };

struct ThroughputSettings {
  bool enabled = true;
  int warmup_steps = 2;
  int measured_steps = 5;
  int repetitions = 3;
  InputMode input = InputMode::kCached;
};

struct CaseSpec {
  std::string id;
  const WorkloadTraits* workload = nullptr;  // resolved from its name when the suite is read
  Control variant = Control::kNone;  // or a negative control
  const ModelFamily* model = nullptr;  // resolved from its name when the suite is read
  optim::Kind optimizer = optim::Kind::kSgd;
  optim::Impl optimizer_impl = optim::Impl::kLoop;  // loop | foreach | fused (optim/optimizers.h)
  std::string tag;                  // names non-default settings ("" for none)
  PrecisionPolicy precision{Precision::kFp32};
  // The FP8 precisions' recipe and choice of layers (faults set for an FP8
  // control); nullopt for every other precision.
  std::optional<Fp8Settings> fp8;
  bool scaler_enabled = false;
  DeviceKind device = DeviceKind::kCpu;
  int world_size = 1;  // dataparallel: replicas; ddp: ranks (the suite's, or the launch's when launched)
  int rank = 0;        // ddp: this process's rank (set at run time, never by a suite file)
  int device_index = 0;  // CUDA device of this process (LOCAL_RANK for ddp; set at run time)
  // Sized for a GPU (a suite's "gpu_sized": true, e.g. the large tier): on
  // another device the case is skipped with the reason instead of running
  // for hours; on a GPU it is skipped when the memory estimate exceeds it.
  bool gpu_sized = false;

  int steps = 10;
  std::uint64_t seed = 1;
  double lr = 0.05;
  bool cosine_schedule = false;
  ModelSizes sizes;
  int iters_to_accumulate = 2;
  double max_norm = 1.0;
  double clip_value = 0.05;
  double loss_multiplier = 1.0;  // < 1 makes gradients underflow float16
  int inject_inf_step = -1;      // optimizer step whose gradients get an inf
  int resume_at = -1;            // save, destroy and restore everything before this step (-1: never)
  bool cuda_graph = false;       // timed steps replay one CUDA-graph capture (runner/graph_step.h)
  int inject_inf_optimizer = 0;  // ...in the first gradient of this optimizer's parameters (multi: 0 or 1)
  // ...or, when named, the whole gradient of this parameter of that
  // optimizer's model (PyTorch's tests fill model[1].weight.grad: "1.weight").
  std::string inject_inf_param;
  optim::Settings optimizer_settings;  // the optimizer's keyword arguments (optim/impl.h)
  LossSettings loss;
  // multi: loss0 = loss(a*out0 + b*out1), loss1 = loss(c*out0 + d*out1), as
  // {a, b, c, d}; the defaults are torch.amp's documented example.
  std::array<double, 4> multi_coefficients = {2, 3, 3, -5};
  // Optimizer steps a scaler-less run skips on purpose, per optimizer
  // (skip_steps[i] for optimizer i): the fp32 reference re-run to skip
  // exactly where a fp16 case's scaler skipped, optimizer by optimizer (set
  // by the suite runner, never by a suite file).
  std::vector<std::vector<int>> skip_steps;
  // Set on that re-run: the id of the case it is aligned to. It is not a
  // case of the suite (ranks do not meet at the barrier after it); its own
  // id carries "#aligned-to:" only so that its dump folder is its own.
  std::string aligned_to;
  ScalerSettings scaler;

  Expect expect = Expect::kPass;
  ToleranceRule tolerance;
  EnvelopeSettings envelope;
  EngagementRule engagement;
  // fp32 baselines: the precisions of the cases compared with this baseline
  // (set by the suite loader), for which the run measures an envelope.
  std::vector<Precision> envelope_precisions;
  // Set on a perturbed replica of a baseline (never by a suite file).
  std::optional<Perturbation> perturbation;
  ThroughputSettings throughput;
  // The gate's minimum effect for this case's throughput (suite "gate" when
  // unset); copied into the results so `ampbench gate` applies it.
  std::optional<double> gate_min_effect;
  std::string baseline_id;  // "" for fp32 baselines
  // Set by `run --implementation compiled` (never by a suite file); fp32
  // baselines stay eager: they are the reference.
  Implementation implementation = Implementation::kEager;
  // converge cases: trained per seed on real data and judged by the
  // convergence rule instead of the equivalence check; nullopt otherwise.
  std::optional<ConvergenceSettings> convergence;

  bool is_baseline() const { return baseline_id.empty(); }
  bool is_control() const { return variant != Control::kNone; }
};

std::string to_string(InputMode mode);
std::string to_string(NoiseModel noise);
// "grad" | "init" | "grad+init"; nullopt otherwise.
std::optional<NoiseModel> parse_noise_model(const std::string& name);

}  // namespace ampbench
