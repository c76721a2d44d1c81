#include "runner/runner.h"
#include "runner/fp8_record.h"

#include <ATen/ops/cat.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/stack.h>
#include <torch/cuda.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>

#include "optim/optimizers.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>

#include <unistd.h>

#include "amp/float32_math.h"
#include "distributed/context.h"
#include "core/distance.h"
#include "data/synthetic_data.h"
#include "distributed/rank_agreement.h"
#include "runner/bitflip.h"
#include "runner/convergence_run.h"
#include "runner/determinism.h"
#include "runner/scaling.h"
#include "runner/case_dump.h"
#include "runner/checkpoint.h"
#include "runner/graph_step.h"
#include "runner/nonfinite.h"
#include "runner/probe.h"
#include "kernels/grad_health.h"
#include "models/flops.h"
#include "runner/timer.h"
#include "spec/replica_perturbation.h"
#include "workloads/workload.h"

#ifdef AMPBENCH_HAVE_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace ampbench {
namespace {

std::vector<float> flatten(const std::vector<at::Tensor>& tensors) {
  if (tensors.empty()) return {};
  std::vector<at::Tensor> flat;
  for (const at::Tensor& t : tensors) flat.push_back(t.detach().to(at::kCPU, at::kFloat).reshape(-1));
  const at::Tensor all = at::cat(flat).contiguous();
  return std::vector<float>(all.data_ptr<float>(), all.data_ptr<float>() + all.numel());
}

// Momentum buffers (SGD) or first and second moments (Adam, AdamW; and
// amsgrad's maximum), in parameter order, so two runs' optimizer states can be compared element by element.
std::vector<at::Tensor> optimizer_state_tensors(const TrainingState& s) {
  std::vector<at::Tensor> out;
  for (const auto& opt : s.optimizers) {
    for (const auto& group : opt->param_groups()) {
      for (const at::Tensor& p : group.params()) {
        const auto it = opt->state().find(p.unsafeGetTensorImpl());
        if (it == opt->state().end()) continue;
        const std::optional<optim::ParamStateTensors> st = optim::param_state(*it->second);
        if (!st) continue;
        for (const at::Tensor& t : {st->momentum_buffer, st->exp_avg, st->exp_avg_sq, st->max_exp_avg_sq})
          if (t.defined()) out.push_back(t);
      }
    }
  }
  return out;
}


// Model i's parameters and buffers by name, the parameters being the trained
// tensors (O2: the float32 masters, which the Python oracle casts itself).
NamedTensors named_state(const TrainingState& s, size_t i) {
  NamedTensors out;
  for (const auto& [name, t] : s.named_trained(i)) out.emplace_back(name, t.detach().cpu().clone());
  for (const auto& item : s.models[i].module->named_buffers()) out.emplace_back(item.key(), item.value().detach().cpu().clone());
  return out;
}

// After the step the gradients are the true ones (a scaler's step unscaled
// them): what fraction would float16 flush to zero as they are, and at the
// scale backward ran at?
void record_grad_health(const TrainingState& s, double backward_scale, GradHealthTrace& trace) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& p : s.parameters()) grads.push_back(p.grad());
  const kernels::GradHealth at_1 = kernels::grad_health(grads, 1.0);
  // Without a scaler backward ran at 1: the same pass again would be a tenth
  // of a big model's float32 step for nothing.
  const kernels::GradHealth at_scale = backward_scale == 1.0 ? at_1 : kernels::grad_health(grads, backward_scale);
  const double n = std::max<int64_t>(1, at_1.total.numel);
  trace.scale.push_back(backward_scale);
  trace.underflow_at_scale_1.push_back(at_1.total.underflow_fp16 / n);
  trace.underflow_at_scale.push_back(at_scale.total.underflow_fp16 / n);
  trace.nonfinite.push_back(at_1.total.nonfinite);
}

// A resume_at case at its resume step: checkpoint everything, destroy the
// state, and load the checkpoint into a fresh one (the negative control
// "resume_without_scaler_state" forgets the scaler's, and
// "resume_without_fp8_state" the FP8 recipe's). With --dump the
// checkpoint stays in the case's dump folder for the Python oracle.
std::unique_ptr<TrainingState> resumed(std::unique_ptr<TrainingState> state, const CaseSpec& spec,
                                       const c10::Device& device, distributed::Context* context,
                                       const std::string& dump_dir) {
  const bool keep = !dump_dir.empty();
  std::string dir = keep ? dump_dir + "/" + dump_folder_name(spec.id) : "";
  if (!keep) {
    std::string pattern = (std::filesystem::temp_directory_path() / "ampbench-resume-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("resume_at: cannot create a temporary folder");
    dir = pattern;
  }
  const std::string path = dir + "/checkpoint.pt";
  save_checkpoint(*state, path);
  const auto fp8_recording = state->fp8_states;  // the old layers' recording outlives them
  state.reset();
  auto fresh = make_training_state(spec, device, context);
  fresh->record_engagement = true;
  carry_fp8_recording(fp8_recording, *fresh);
  load_checkpoint(*fresh, path, spec.variant != Control::kResumeWithoutScalerState,
                  spec.variant != Control::kResumeWithoutFp8State);
  if (!keep) {
    ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }
  return fresh;
}

// What a training run records beyond its losses, scales and tensors.
struct RecordExtras {
  std::string dump_dir;   // dumped for the Python reference when set
  int bitflip_step = -1;  // corrupted at this step when >= 0
  // The per-step gradient statistics. Off for the runs that are only
  // compared by distance and then dropped (the noise run, the envelope
  // replicas, a resumed case's uninterrupted twin): on a real model they
  // were a tenth of each step.
  bool grad_health = true;
};
const RecordExtras kComparedOnly{.grad_health = false};

// The conformance run: fresh weights, spec.steps optimizer steps.
void train_recorded(const CaseSpec& spec, const c10::Device& device, distributed::Context* context,
                    CaseRecord& rec, const RecordExtras& extras = {}) {
  const std::string& dump_dir = extras.dump_dir;
  const int bitflip_step = extras.bitflip_step;
  std::unique_ptr<TrainingState> state = make_training_state(spec, device, context);
  if (!state->fp8_plans.empty()) rec.fp8_layers = state->fp8_plans.front().layers;
  enable_fp8_range_counts(*state);
  state->record_engagement = true;
  const Workload& workload = find_workload(spec.workload->name());
  const SyntheticData data(data_options(spec), device);
  rec.initial_params = flatten(state->parameters());
  const bool probed = probes_function_space(*state);
  const at::Tensor probe = probed ? data.host_to_device(0).inputs : at::Tensor();
  if (probed) rec.initial_probe = probe_outputs(*state, probe);

  std::optional<CaseDump> dump;
  if (!dump_dir.empty()) {
    dump.emplace(CaseDump{rec, {}, {}, {}, {}});
    for (size_t i = 0; i < state->models.size(); ++i) dump->initial_state.push_back(named_state(*state, i));
  }

  std::vector<at::Tensor> losses;
  int cursor = 0;
  // bf16 and tf32 have float32's range: underflow to fp16 is not their question.
  if (extras.grad_health && spec.precision.float16_range_matters()) rec.grad_health.emplace();
  for (int step = 0; step < spec.steps; ++step) {
    state->step_index = step;  // the checkpoint's step_index: where the run resumes
    if (step == spec.resume_at) state = resumed(std::move(state), spec, device, context, dump_dir);
    apply_lr_schedule(*state);
    const double backward_scale = state->scaler.get_scale();
    const std::vector<Batch> batches = micro_batches(data, workload.micro_batches(spec), cursor, false);
    if (dump) dump->batches.insert(dump->batches.end(), batches.begin(), batches.end());
    state->optimizer_skipped.assign(state->optimizers.size(), false);
    std::optional<GradientBitflip> bitflip;
    // The module's own tensor, in the graph (O2/O3: not the float32 master).
    if (step == bitflip_step) bitflip.emplace(state->models.front().parameters().front());
    const StepOutcome outcome = workload.step(*state, batches);
    bitflip.reset();
    losses.push_back(outcome.loss.to(at::kFloat));
    rec.skipped.push_back(outcome.skipped);
    rec.optimizer_skipped.push_back(state->optimizer_skipped);
    rec.engagement.push_back(outcome.engagement);
    if (rec.grad_health) record_grad_health(*state, backward_scale, *rec.grad_health);
    rec.scale.push_back(state->scaler.get_scale());
    record_fp8_scales(*state, rec);
  }
  record_fp8_range(*state, rec);
  const at::Tensor all = at::stack(losses).to(at::kCPU, at::kDouble);
  rec.loss.assign(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());

  if (const Model& m = state->model(); m.attention_backend) {
    const PrecisionAutocast autocast(*state);  // the kernel depends on the dtypes it sees
    rec.attention_backend = m.attention_backend(data.host_to_device(0).inputs);
  }
  const std::vector<at::Tensor> params = state->parameters();
  rec.final_params = flatten(params);
  rec.optimizer_state = flatten(optimizer_state_tensors(*state));
  if (probed) rec.final_probe = probe_outputs(*state, probe);
  for (const at::Tensor& p : params) rec.nonfinite_values += (~at::isfinite(p.detach())).sum().item<int64_t>();
  if (dump) {
    for (size_t i = 0; i < state->models.size(); ++i) dump->final_state.push_back(named_state(*state, i));
    for (const at::Tensor& t : optimizer_state_tensors(*state)) dump->optimizer_state.push_back(t.detach().cpu());
    write_case_dump(dump_dir, *dump);
  }
}

// Bitwise: the first step (or final tensor) where a resumed run left the
// uninterrupted one.
std::optional<std::string> resume_difference(const CaseRecord& resumed, const CaseRecord& straight, int resume_at) {
  const std::string head = "resumed at step " + std::to_string(resume_at) + ", the run differs from the uninterrupted one: ";
  for (size_t t = 0; t < resumed.loss.size() && t < straight.loss.size(); ++t) {
    const bool same_loss = resumed.loss[t] == straight.loss[t] || (std::isnan(resumed.loss[t]) && std::isnan(straight.loss[t]));
    if (!same_loss) return head + "loss at step " + std::to_string(t);
    if (resumed.scale[t] != straight.scale[t])
      return head + "loss scale after step " + std::to_string(t) + " (" + std::to_string(resumed.scale[t]) + " vs " +
             std::to_string(straight.scale[t]) + ")";
    if (resumed.skipped[t] != straight.skipped[t]) return head + "skipped flag of step " + std::to_string(t);
  }
  if (resumed.final_params != straight.final_params) return head + "final parameters";
  if (resumed.optimizer_state != straight.optimizer_state) return head + "final optimizer state";
  return std::nullopt;
}

// fp32 run-to-run noise: an identical second run, compared with the first.
void measure_noise(const CaseSpec& spec, const c10::Device& device, distributed::Context* context, CaseRecord& rec) {
  CaseRecord again;
  train_recorded(spec, device, context, again, kComparedOnly);
  double worst = 0;
  for (size_t i = 0; i < rec.loss.size() && i < again.loss.size(); ++i)
    worst = std::max(worst, loss_deviation(again.loss[i], rec.loss[i]));
  rec.noise_loss_rel = worst;
  rec.noise_param_rel = relative_l2(again.final_params, rec.final_params, rec.initial_params);
}

// The envelope's raw material (check/envelope.h): for each precision
// compared with this baseline, spec.envelope.replicas fp32 runs with that
// precision's rounding noise injected; precisions whose noise is the same
// share one set (spec/replica_perturbation.h). Untimed.
void measure_replicas(const CaseSpec& spec, const c10::Device& device, distributed::Context* context,
                      CaseRecord& rec) {
  for (const Precision precision : spec.envelope_precisions) {
    CaseSpec compared = spec;
    compared.precision = PrecisionPolicy(precision);
    if (!skip_reason(compared).empty()) continue;  // its cases are skipped here (tf32 on a CPU): nothing to bound
    const auto shared = std::find_if(rec.replica_sets.begin(), rec.replica_sets.end(), [&](const ReplicaSet& s) {
      return share_replicas(spec, s.precisions.front(), precision);
    });
    if (shared != rec.replica_sets.end()) {
      shared->precisions.push_back(precision);
      continue;
    }
    const Perturbation noise = replica_perturbation(spec, precision, 0);
    ReplicaSet set{.precisions = {precision}, .unit_roundoff = noise.unit_roundoff, .noise = noise.noise};
    for (int r = 0; r < spec.envelope.replicas; ++r) {
      CaseSpec replica = spec;
      replica.envelope_precisions.clear();
      replica.perturbation = replica_perturbation(spec, precision, r);
      CaseRecord out;
      train_recorded(replica, device, context, out, kComparedOnly);
      set.replicas.push_back(
          {std::move(out.loss), std::move(out.final_params), std::move(out.optimizer_state), std::move(out.final_probe)});
    }
    rec.replica_sets.push_back(std::move(set));
  }
}

void spin_for(double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

std::vector<Batch> micro_batches(const SyntheticData& data, int count, int& cursor, bool cached) {
  std::vector<Batch> batches;
  for (int i = 0; i < count; ++i) batches.push_back(cached ? data.cached() : data.host_to_device(cursor++));
  return batches;
}

DataOptions data_options(const CaseSpec& spec) {
  DataOptions d;
  d.model = spec.model;
  d.sizes = spec.sizes;
  d.loss = spec.loss.kind;
  d.seed = spec.seed + 1000;  // independent of the weight seed
  // DataParallel: one process scatters the whole batch; DDP: each rank reads
  // its own shard of it.
  const Replication replication = find_workload(spec.workload->name()).replication();
  if (replication == Replication::kThreads) d.sizes.batch *= spec.world_size;
  if (replication == Replication::kRanks) {
    d.rank = spec.rank;
    d.world_size = spec.world_size;
  }
  return d;
}

TimedTraining::TimedTraining(const CaseSpec& spec, const c10::Device& device, distributed::Context* context)
    : state_(make_training_state(spec, device, context)),
      workload_(find_workload(spec.workload->name())),
      data_(data_options(spec), device),
      micro_batches_(workload_.micro_batches(spec)),
      cached_(spec.throughput.input == InputMode::kCached) {
  state_->step_index = spec.steps;  // past any injected inf
}

TimedTraining::~TimedTraining() = default;

void TimedTraining::step() { workload_.step(*state_, micro_batches(data_, micro_batches_, cursor_, cached_)); }

ThroughputRecord measure_throughput(const CaseSpec& spec, const c10::Device& device, double slowdown,
                                    distributed::Context* context) {
  const ThroughputSettings& t = spec.throughput;
  TimedTraining timed(spec, device, context);
  auto eager_step = [&] { timed.step(); };
  // A "cuda_graph" case warms up on a side stream, captures one step and
  // times its replays.
  std::optional<GraphedStep> graph;
  if (spec.cuda_graph) {
    graph.emplace(eager_step, t.warmup_steps);
  } else {
    for (int i = 0; i < t.warmup_steps; ++i) eager_step();
  }
  auto one_step = [&] { graph ? graph->replay() : eager_step(); };
  reset_peak_memory(device);
  ThroughputRecord rec;
  rec.input = t.input;
  rec.warmup_steps = t.warmup_steps;
  rec.measured_steps = t.measured_steps;
  rec.samples_per_step = find_workload(spec.workload->name()).effective_batch(spec);
  rec.training_flops_per_sample = training_flops_per_sample(*spec.model, spec.sizes);
  DeviceTimer timer(device), step_timer(device);
  rec.timing_method = timer.method();
  for (int r = 0; r < t.repetitions; ++r) {
    timer.start();
    for (int i = 0; i < t.measured_steps; ++i) {
      if (slowdown > 0) step_timer.start();
      one_step();
      if (slowdown > 0) spin_for(slowdown * step_timer.stop());
    }
    const double seconds = timer.stop();
    rec.samples_per_s.push_back(static_cast<double>(t.measured_steps) * rec.samples_per_step / seconds);
  }
  rec.peak_memory_bytes = peak_memory_bytes(device);
  rec.peak_memory_kind = device.is_cuda() ? "cuda_allocator_peak" : "process_max_rss";
  return rec;
}


Runner::~Runner() {
  if (world_of_one_) distributed::shutdown(*world_of_one_);
}

const Dataset& Runner::dataset(const ConvergenceSettings& settings) const {
  if (!dataset_ || dataset_->path != settings.data_file)
    dataset_ = std::make_shared<const Dataset>(read_dataset_file(settings.dataset, settings.data_file));
  return *dataset_;
}

distributed::Context& Runner::context() const {
  if (options_.context) return *options_.context;
  if (!world_of_one_) world_of_one_ = distributed::make_world_of_one();
  return *world_of_one_;
}

CaseRecord Runner::run(const CaseSpec& spec) const {
  CaseRecord rec;
  rec.spec = spec;
  const auto began = std::chrono::steady_clock::now();
  // A suite resolves both; a case built by hand without them is an error
  // of that case, not a crash of the run.
  if (!spec.workload || !spec.model) {
    rec.status = RunStatus::kError;
    rec.reason = "case '" + spec.id + "' has no " + (spec.workload ? "model family" : "workload") +
                 " (CaseSpec fields are resolved when a suite is read)";
    if (options_.after_case) options_.after_case(spec);
    return rec;
  }
  rec.reason = skip_reason(spec);
  if (rec.reason.empty() && options_.skip_here) rec.reason = options_.skip_here(spec);
  if (!rec.reason.empty()) {
    rec.status = RunStatus::kSkipped;
    if (options_.after_case) options_.after_case(spec);
    return rec;
  }
  try {
    // The whole case (and, for a baseline, its noise run and replicas) under
    // the policy's float32 math: IEEE for fp32/fp16/bf16, TF32 for tf32.
    const amp::Float32MathGuard fp32_math(spec.precision.float32_math());
    const bool cuda = spec.device == DeviceKind::kCuda;
    const c10::Device device(cuda ? c10::kCUDA : c10::kCPU, cuda ? static_cast<c10::DeviceIndex>(spec.device_index) : -1);
    const Workload& workload = find_workload(spec.workload->name());
    distributed::Context* context = workload.collective() ? &this->context() : nullptr;
    // A converge case trains per seed on real data (runner/convergence_run.h);
    // its verdict is the convergence rule's, not the equivalence check's.
    if (spec.convergence) {
      rec.convergence = train_convergence(spec, dataset(*spec.convergence), device);
    } else {
      train_recorded(spec, device, context, rec,
                     {.dump_dir = options_.dump_dir, .bitflip_step = options_.inject_bitflip_step});
      if (options_.fingerprint) rec.fingerprint = fingerprint_of(rec.loss, rec.final_params, rec.optimizer_state);
      if (has_unabsorbed_nonfinite(rec)) rec.nonfinite = diagnose_nonfinite(spec, device, context);
      if (spec.resume_at >= 0) {
        CaseSpec straight = spec;
        straight.resume_at = -1;
        CaseRecord uninterrupted;
        train_recorded(straight, device, context, uninterrupted, kComparedOnly);
        rec.resume_mismatch = resume_difference(rec, uninterrupted, spec.resume_at);  // the checker fails the case
      }
      // The replayed step must be the eager one (the checker fails the case).
      if (spec.cuda_graph) rec.graph_mismatch = graph_difference(spec, device, spec.throughput.warmup_steps, 3);
      if (context) {
        // The checker fails the case with a disagreement.
        rec.rank_disagreement =
            distributed::find_rank_disagreement({rec.scale, rec.skipped, rec.final_params}, *context);
        if (!rec.rank_disagreement) rec.ranks_agreed = spec.world_size;
      }
      if (spec.is_baseline() && spec.skip_steps.empty()) {
        measure_noise(spec, device, context, rec);
        measure_replicas(spec, device, context, rec);
      }
      if (options_.measure_throughput && spec.throughput.enabled) {
        rec.throughput = measure_throughput(spec, device, options_.inject_slowdown, context);
        if (workload.replicated()) rec.ddp = measure_scaling(spec, device, *rec.throughput, context);
      }
    }
  } catch (const std::exception& e) {
    rec.status = RunStatus::kError;
    rec.reason = e.what();
  }
  rec.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (options_.after_case) options_.after_case(spec);
  return rec;
}

}  // namespace ampbench
