// Throughput of the distributed workloads beyond the case's own number:
// each rank's samples/s (gathered onto every rank through the process group),
// their sum, and the scaling efficiency against one replica alone:
//
//   scaling_efficiency = aggregate / (replicas * one_replica)
//
// where one_replica is single_replica_workload() (same model, precision,
// per-replica batch) measured on the same device with the other ranks idle
// (they wait at a barrier), i.e. what one device does with no communication.
#pragma once

#include <c10/core/Device.h>

#include "runner/case_record.h"
#include "runner/runner.h"

namespace ampbench {

// `own` is the case's throughput as the runner measured it on this rank
// (samples/s of the whole effective batch). Collective for ddp cases (over
// `context`): every rank must call it for the same case.
ScalingRecord measure_scaling(const CaseSpec& spec, const c10::Device& device, const ThroughputRecord& own,
                              distributed::Context* context);

}  // namespace ampbench
