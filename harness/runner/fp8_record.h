// What a recorded FP8 case keeps of its recipe's state: each converted
// layer's scales per step and what its casts lost to the format's range
// (CaseRecord::fp8_scales, fp8_range, fp8_casts, mx_casts, rowwise_casts).
// Rowwise and MXFP8 scales are per row or block: their casts' logs.
#pragma once

#include "runner/case_record.h"
#include "workloads/training_state.h"

namespace ampbench {

// Makes the first model's converted layers count their casts' range losses
// (two reductions a cast: recorded runs only). No-op without FP8.
void enable_fp8_range_counts(TrainingState& s);

// A resumed run's fresh state takes over the recording (range counts, cast
// traces and logs) of the state it replaces: recording is no training
// state, so it is not checkpointed, and the audit sees every cast of the run.
void carry_fp8_recording(const std::vector<std::vector<std::shared_ptr<fp8::Fp8LinearState>>>& from,
                         TrainingState& to);

// Appends the scales each converted layer of the first model holds after
// the step just taken (one host read per tensor). No-op without FP8.
void record_fp8_scales(const TrainingState& s, CaseRecord& rec);

// The range counts over the run and every traced cast, read once after its
// last step. No-op without FP8.
void record_fp8_range(const TrainingState& s, CaseRecord& rec);

}  // namespace ampbench
