// CaseRecord: what running one case produced. Plain data (no tensors), so
// checking, writing, gating and reporting never need LibTorch state.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fp8/cast_trace.h"
#include "runner/convergence_record.h"
#include "spec/case_spec.h"
#include "workloads/engagement.h"

namespace ampbench {

struct ThroughputRecord {
  InputMode input = InputMode::kCached;
  int warmup_steps = 0;
  int measured_steps = 0;
  std::string timing_method;  // "cuda_events" | "steady_clock"
  int64_t samples_per_step = 0;
  double training_flops_per_sample = 0;  // analytic (models/flops.h)
  std::vector<double> samples_per_s;  // one per repetition
  std::optional<int64_t> peak_memory_bytes;
  std::string peak_memory_kind;  // "cuda_allocator_peak" | "process_max_rss"
};

// Distributed throughput (results' "ddp" block): per-rank samples/s, their
// sum, and efficiency against replicas x one replica alone.
struct ScalingRecord {
  std::vector<double> per_rank_samples_per_s;
  double aggregate_samples_per_s = 0;
  double scaling_efficiency = 0;
  int replicas = 1;
  double one_replica_samples_per_s = 0;
  std::string backend;  // "gloo", "nccl+gloo", "threads" (DataParallel)
};

// Per optimizer step, what float16 would do to the step's gradients
// (kernels/grad_health.h): the evidence of why fp16 needs a scaler.
struct GradHealthTrace {
  std::vector<double> scale;                   // the loss scale backward ran at (1 without a scaler)
  std::vector<double> underflow_at_scale_1;    // fraction of true gradient values below 2^-24
  std::vector<double> underflow_at_scale;      // the same values times the scale
  std::vector<int64_t> nonfinite;              // non-finite gradient values
};

enum class RunStatus { kRan, kSkipped, kError };

// Hashes (16 hex digits each) of what a deterministic run produced
// (runner/determinism.h): machines of one kind must agree on every one.
struct CaseFingerprint {
  std::string loss;             // the loss trajectory, as recorded (double)
  std::string final_params;     // the flattened final parameters (float32)
  std::string optimizer_state;  // the flattened optimizer state (float32)
  std::string combined;         // of the three
};

// What one perturbed fp32 replica of a baseline produced (spec.perturbation):
// the raw material of the equivalence envelope (check/envelope.h).
struct ReplicaRecord {
  std::vector<double> loss;
  std::vector<float> final_params;
  std::vector<float> optimizer_state;
  std::vector<float> final_probe;
};

// The replicas trained at one precision's rounding noise, and the compared
// precisions they serve (those with the same noise share them).
struct ReplicaSet {
  std::vector<Precision> precisions;
  double unit_roundoff = 0;
  NoiseModel noise = NoiseModel::kGrad;
  std::vector<ReplicaRecord> replicas;
};

// Where a non-finite value the scaler did not absorb first appeared
// (runner/nonfinite.h).
struct NonfiniteDiagnosis {
  int step = 0;
  std::string where;  // "backward: the gradient of model0.head", "forward: ...", "optimizer step: ..."
};

// A case trained by the compiled implementation (session/compiled_case.h):
// how torch.compile took the model, and what compiling cost apart from the
// steady-state throughput.
struct CompiledRun {
  std::string mode;                 // torch.compile's mode
  bool compile_step = false;        // the optimizer step compiled too
  std::string fault;                // a test-only fault in the compiled graph ("" for none)
  std::string torch_version;        // of the Python that compiled it
  int graphs = 0;                   // graphs Dynamo captured
  std::vector<std::string> graph_breaks;  // one reason per break
  int recompiles = 0;
  bool ran_eager = false;           // some frame fell back to eager
  bool fullgraph = false;           // fullgraph=True compiles the model
  std::string fullgraph_refusal;    // why not ("" when it does)
  double seconds_cold = 0;          // first compile, empty caches (unless cache_reused)
  bool cache_reused = false;        // the cold compile ran on a cache kept from other cases or runs
  double seconds_warm = 0;          // again, with the FX graph cache filled
  std::vector<double> eager_samples_per_s;  // the C++ eager loop of the same case
  // The case exceeded its bound: its largest distance/bound again with
  // Inductor keeping eager's intermediate roundings (emulate_precision_casts).
  std::optional<double> emulated_max_ratio;
};

struct CaseRecord {
  CaseSpec spec;
  RunStatus status = RunStatus::kRan;
  std::string reason;  // why skipped / the error

  // Per optimizer step.
  std::vector<double> loss;
  std::vector<double> scale;  // scaler.get_scale() after update (1.0 without)
  std::vector<bool> skipped;  // any optimizer skipped
  // [step][optimizer]: which optimizer skipped (multi has two, each may skip
  // on its own).
  std::vector<std::vector<bool>> optimizer_skipped;
  std::vector<Engagement> engagement;  // what the workload's mechanism did, per step

  // Flattened final state, kept in memory for the checker (not serialized).
  std::vector<float> initial_params;
  std::vector<float> final_params;
  std::vector<float> optimizer_state;
  int64_t nonfinite_values = 0;  // in final parameters
  // Models with BatchNorm: the outputs of the initial and the final weights
  // on a fixed probe batch (runner/probe.h); empty for the others.
  std::vector<float> initial_probe;
  std::vector<float> final_probe;

  // fp32 baselines: the deviation of an identical second run (noise floor).
  std::optional<double> noise_loss_rel;
  std::optional<double> noise_param_rel;
  // fp32 baselines: perturbed replicas, one set per rounding noise of the
  // precisions compared with this baseline (spec.envelope_precisions).
  std::vector<ReplicaSet> replica_sets;

  std::optional<GradHealthTrace> grad_health;  // fp32 and fp16 cases
  std::optional<ThroughputRecord> throughput;
  std::optional<ScalingRecord> ddp;  // dataparallel and ddp cases
  // ddp: ranks whose skipped steps, scale trajectory and final parameters
  // were checked identical (distributed/rank_agreement.h); 0 otherwise.
  int ranks_agreed = 0;
  // ddp: the first disagreement found (rank, quantity, step), which fails the case.
  std::optional<std::string> rank_disagreement;
  // resume_at cases: how the resumed run first differed from the
  // uninterrupted one (they must agree bitwise); none when identical.
  std::optional<std::string> resume_mismatch;
  // cuda_graph cases: where the replayed steps left the eager ones
  // (runner/graph_step.h graph_difference); none when bitwise equal.
  std::optional<std::string> graph_mismatch;
  // Set when the run left non-finite values the scaler did not absorb (a
  // non-finite loss on a step that was not skipped, or in the final
  // parameters): found by re-running the case with per-module checks.
  std::optional<NonfiniteDiagnosis> nonfinite;
  // Attention models: the scaled_dot_product_attention kernel the recorded
  // run's forward picked ("flash", "memory_efficient", "cudnn", "math").
  std::string attention_backend;
  // FP8 precisions: every Linear of the (first) model and whether its
  // recipe converted it, or why not; empty otherwise.
  std::vector<fp8::LinearChoice> fp8_layers;
  // Per step, per converted layer of that model (in fp8_layers' order): the
  // input's, weight's and output gradient's scale in force after the step
  // (tensorwise: the last one used; delayed: the next one). Empty for
  // rowwise, whose scales are per row.
  std::vector<std::vector<std::array<double, 3>>> fp8_scales;
  // Per converted layer (same order; tensorwise and delayed), per operand
  // (input, weight, output gradient), over the run's casts: values past the
  // range, non-zero values flushed to zero, values cast.
  struct Fp8RangeCounts {
    std::array<int64_t, 3> saturated{}, flushed{}, elements{};
  };
  std::vector<Fp8RangeCounts> fp8_range;
  // Per converted layer (same order; tensorwise and delayed), per operand:
  // every cast's amax of the tensor cast and the scale it used, in order
  // (the scale audit's input, check/fp8_scale_audit.h).
  std::vector<std::array<std::vector<fp8::CastTrace>, 3>> fp8_casts;
  // MXFP8 likewise: per converted layer, per operand, every cast's block
  // amaxes and exponents (check/mx_scale_audit.h).
  std::vector<std::array<std::vector<fp8::MxCastTrace>, 3>> mx_casts;
  // Rowwise likewise: every cast's row amaxes and scales
  // (check/rowwise_scale_audit.h).
  std::vector<std::array<std::vector<fp8::RowwiseCastTrace>, 3>> rowwise_casts;
  // Blockwise likewise: per tile, its amax and scale (check/blockwise_scale_audit.h).
  std::vector<std::array<std::vector<fp8::RowwiseCastTrace>, 3>> blockwise_casts;
  // NVFP4 likewise (check/nvfp4_scale_audit.h).
  std::vector<std::array<std::vector<fp8::Nvfp4CastTrace>, 3>> nvfp4_casts;
  // --deterministic: the hashes of this run (none otherwise, and for cases
  // that did not run).
  std::optional<CaseFingerprint> fingerprint;
  // The compiled implementation's case (the trajectory above is then the
  // compiled run's); none for the eager loop.
  std::optional<CompiledRun> compiled;
  // A converge case: its curve per seed (then the per-step fields above are
  // empty: there is no single trajectory).
  std::optional<ConvergenceRecord> convergence;
  // Set by the judge when this run proved the suite's input unusable (a
  // convergence target its fp32 runs never reach): the session stops, exit 2.
  bool input_unusable = false;
  double wall_seconds = 0;
};

}  // namespace ampbench
