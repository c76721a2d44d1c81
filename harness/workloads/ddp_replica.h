// The DdpReplica of a TrainingState: built on the state's first DDP step
// (broadcast from rank 0, Reducer over its model's parameters), reused by
// every later step of that state, and owned by the state
// (TrainingState::workload_extension), so the Reducer is destroyed with the
// case, inside main(), and never at static destruction (where CUDA may be
// gone: the H200's "driver shutting down" abort). No process-wide registry.
#pragma once

#include "distributed/ddp_reducer.h"
#include "workloads/training_state.h"

namespace ampbench {

// The state's replica; a new one when the state has none or its model was
// replaced. Only the ddp workload may use state.workload_extension.
distributed::DdpReplica& ddp_replica_for(TrainingState& state);

}  // namespace ampbench
