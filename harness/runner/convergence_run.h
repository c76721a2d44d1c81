// The training of a converge case: for each of its seeds, fresh weights from
// the seed, batches drawn from the training split in a per-epoch shuffle of
// the seed, a linear warm-up then cosine decay of the learning rate, and the
// held-out split evaluated every eval_every steps. The step is the
// workload's (plain's recipe); the long-horizon controls are set up here,
// each beside the correct line it breaks.
#pragma once

#include <c10/core/Device.h>

#include "data/dataset_file.h"
#include "runner/convergence_record.h"
#include "spec/case_spec.h"

namespace ampbench {

// The learning rate of step `step` (0-based): lr * (step + 1) / warmup during
// the warm-up, then lr * (1 + cos(pi * progress)) / 2 down to 0 at the end.
double convergence_lr(double lr, int step, int steps, int warmup_steps);

// Trains `spec` once per seed of spec.convergence on `data`.
ConvergenceRecord train_convergence(const CaseSpec& spec, const Dataset& data, const c10::Device& device);

}  // namespace ampbench
