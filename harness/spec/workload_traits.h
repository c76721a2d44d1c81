// What the rest of the harness knows about a workload besides its step:
// its name, negative controls, models per case, micro-batching, how it is
// replicated and what its engagement rule checks. Free of LibTorch, so the
// suite parser (and its fuzz target) can ask it; the steps are registered
// beside them in workloads/workload.cpp. A case holds its workload's traits
// (CaseSpec::workload), resolved from the name when the suite is read.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "spec/case_spec.h"

namespace ampbench {

// How a case's batch is spread over spec.world_size replicas.
enum class Replication {
  kNone,     // one replica: world_size is always 1
  kThreads,  // one process scatters the whole batch over replica threads (DataParallel)
  kRanks,    // one process per rank, each reading its own shard; collectives (DDP)
};

// What a correct run must show its mechanism did (the checker's engagement
// rule), so a recipe that silently did nothing cannot pass.
enum class Engages { kNothing, kClipNorm, kClipValue, kPenalty, kAccumulation };

// A chainable option, as TORCH_ARG (which this LibTorch-free header cannot use).
#define AMPBENCH_TRAIT(T, name)                         \
 public:                                                \
  WorkloadTraits& name(T value) {                       \
    name##_ = std::move(value);                         \
    return *this;                                       \
  }                                                     \
  const T& name() const noexcept { return name##_; }    \
                                                        \
 private:                                               \
  T name##_

class WorkloadTraits {
 public:
  explicit WorkloadTraits(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // Negative controls besides the correct recipe, each one known AMP
  // mistake (docs/semantics.md#negative-controls).
  AMPBENCH_TRAIT(std::vector<Control>, controls) = {};
  // Models, each with its own optimizer, in one case (one scaler for all).
  AMPBENCH_TRAIT(int, models) = 1;
  // One optimizer step consumes spec.iters_to_accumulate micro-batches.
  AMPBENCH_TRAIT(bool, accumulates) = false;
  AMPBENCH_TRAIT(Replication, replication) = Replication::kNone;
  AMPBENCH_TRAIT(Engages, engages) = Engages::kNothing;
  // Its step differentiates a backward pass (create_graph), so every layer
  // needs a double backward in the case's dtype.
  AMPBENCH_TRAIT(bool, second_order) = false;
  // Its timed step can be captured into a CUDA graph: no host reads, no
  // replicas (runner/graph_step.h).
  AMPBENCH_TRAIT(bool, capturable) = false;
  // Trained to quality on real data, once per seed, and judged by the
  // convergence rule (a suite's "convergence" section; docs/convergence.md).
  AMPBENCH_TRAIT(bool, converges) = false;

 public:
  // The variants' suite names: "correct" first, then the controls.
  std::vector<std::string> variants() const;
  // Control::kNone or one of its controls.
  bool offers(Control control) const;
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
};

#undef AMPBENCH_TRAIT

// Every workload, in registration order (the catalog in workload_traits.cpp).
const std::vector<WorkloadTraits>& all_workload_traits();
// Throws std::invalid_argument for an unknown name, listing the known ones.
const WorkloadTraits& workload_traits(const std::string& name);
std::vector<std::string> workload_names();

}  // namespace ampbench
