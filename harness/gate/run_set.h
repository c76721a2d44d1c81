// Several results files of one suite and environment gated as one side:
// `ampbench gate --baseline B1 B2 ... --current C1 C2 ...`.
//
// Why: on a shared machine most throughput noise is an offset per process
// (every repetition of a case in one run is a few percent fast or slow
// together), which repetitions inside one run cannot average away: a U test
// on repetitions then reads that offset as a significant change. With several
// runs per side the U test's observations are the per-run medians, so it sees
// the process-to-process spread it must tolerate (pyperf spawns worker
// processes for the same reason).
#pragma once

#include <cstddef>
#include <vector>

#include "gate/results_file.h"

namespace ampbench::gate {

// Per-run medians when both sides have at least two runs; pooled repetitions
// otherwise (one run has no run-to-run spread to show the test).
bool use_run_medians(std::size_t baseline_runs, std::size_t current_runs);

// Merges one side's runs (at least one; a single run is returned unchanged):
//  - suite and the environment fields the gate compares must agree, or
//    GateInputError naming the odd file;
//  - cases are the union, in first-seen order; each takes the conformance of
//    its worst run (error > fail > ok > skipped), and when the runs disagree
//    the reason says in how many runs it was worst; a case absent from some
//    runs is reported in `notices`;
//  - throughput settings (unit, input, batch_size, world_size) must agree
//    across runs (GateInputError otherwise); the samples are one median per
//    run that measured the case (`run_medians`; `sample_runs` says which
//    run, for pairing), or all repetitions pooled;
//  - complete only when every run is.
ResultsFile merge_runs(const std::vector<ResultsFile>& runs, bool run_medians);

// Throws GateInputError naming runs[i].path when its suite or environment
// differs from runs[0]'s.
void require_same_suite_and_env(const std::vector<ResultsFile>& runs);

}  // namespace ampbench::gate
