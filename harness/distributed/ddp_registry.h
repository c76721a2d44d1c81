// The DdpReplica of a TrainingState: built on the state's first DDP step
// (broadcast from rank 0, Reducer over its model's parameters) and reused by
// every later step of that state. TrainingState stays workload-agnostic; the
// replica lives here, keyed by the state and its model (so a new state at a
// recycled address never inherits a stale Reducer).
#pragma once

#include "distributed/ddp_reducer.h"
#include "workloads/training_state.h"

namespace ampbench::distributed {

DdpReplica& ddp_replica_for(TrainingState& state);

}  // namespace ampbench::distributed
