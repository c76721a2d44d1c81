// A workload is one training procedure (docs/semantics.md#workload-recipes).
// Its step does one optimizer iteration and reads top to bottom like the
// recipe; negative controls are variants selected by spec.variant, written
// beside the correct line they break.
//
// Each workload describes itself once, in its own file (a `Workload`
// returned by e.g. plain_workload()), and is registered by one line in
// workload.cpp. Suite parsing, the runner, the checker, the launcher and the
// CLI ask the descriptor; nothing outside workloads/ compares a workload name.
#pragma once

#include <torch/arg.h>

#include <functional>
#include <string>
#include <vector>

#include "workloads/engagement.h"
#include "workloads/training_state.h"

namespace ampbench {

struct StepOutcome {
  at::Tensor loss;  // detached, on the device: read after the timed region
  bool skipped = false;  // an optimizer skipped its step (inf/NaN gradients)
  Engagement engagement;  // filled when s.record_engagement (never in timed steps)
};

using StepFn = std::function<StepOutcome(TrainingState&, const std::vector<Batch>&)>;

// How a case's batch is spread over spec.world_size replicas.
enum class Replication {
  kNone,     // one replica: world_size is always 1
  kThreads,  // one process scatters the whole batch over replica threads (DataParallel)
  kRanks,    // one process per rank, each reading its own shard; collectives (DDP)
};

// What a correct run must show its mechanism did (the checker's engagement
// rule), so a recipe that silently did nothing cannot pass.
enum class Engages { kNothing, kClipNorm, kClipValue, kPenalty, kAccumulation };

class Workload {
 public:
  Workload(std::string name, StepFn step) : name_(std::move(name)), step_(std::move(step)) {}

  // Negative controls: variant names besides "correct", each one known AMP
  // mistake (docs/semantics.md#negative-controls).
  TORCH_ARG(std::vector<std::string>, controls) = {};
  // Models, each with its own optimizer, in one case (one scaler for all).
  TORCH_ARG(int, models) = 1;
  // One optimizer step consumes spec.iters_to_accumulate micro-batches.
  TORCH_ARG(bool, accumulates) = false;
  TORCH_ARG(Replication, replication) = Replication::kNone;
  TORCH_ARG(Engages, engages) = Engages::kNothing;

 public:
  const std::string& name() const { return name_; }
  StepOutcome step(TrainingState& s, const std::vector<Batch>& batches) const { return step_(s, batches); }
  // "correct" first, then the controls.
  std::vector<std::string> variants() const;
  bool replicated() const { return replication_ != Replication::kNone; }
  // Its ranks are processes that must rendezvous (and agree after a case).
  bool collective() const { return replication_ == Replication::kRanks; }
  // Micro-batches one optimizer iteration consumes.
  int micro_batches(const CaseSpec& spec) const { return accumulates_ ? spec.iters_to_accumulate : 1; }
  // Samples one optimizer step consumes over all replicas.
  int effective_batch(const CaseSpec& spec) const {
    return spec.sizes.batch * micro_batches(spec) * (replicated() ? spec.world_size : 1);
  }

 private:
  std::string name_;
  StepFn step_;
};

// Every registered workload, in registration order.
const std::vector<Workload>& all_workloads();

// Their names, in registration order.
std::vector<std::string> workload_names();

// Throws std::invalid_argument for an unknown name, listing the known ones.
const Workload& find_workload(const std::string& name);

// The workload a replicated case's scaling efficiency is measured against:
// the same model and batch share on one replica, no collectives.
const Workload& single_replica_workload();

}  // namespace ampbench
