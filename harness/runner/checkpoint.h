// Checkpoints for resume-mid-run cases ("resume_at": k): everything a run
// needs to continue exactly (model parameters and buffers, each optimizer's
// state, the GradScaler's state, the step index), as one torch.load-able
// dict of name -> tensor (torch::pickle_save), so the Python oracle can read
// what C++ resumed from.
//
// Names: "model<i>.<parameter or buffer>", "optimizer<i>.<k>.<field>" (k the
// parameter's index in its optimizer; field momentum_buffer | exp_avg |
// exp_avg_sq | step | step_count), "scaler.<field>" (GradScalerState, as
// float64/int64 scalars), "master<i>.<k>" (O2: model i's float32 master
// weights, in its parameter order), "fp8<i>.<l>.<operand>.<field>" (model
// i's converted layer l; operand input | weight | grad_output; field
// amax_history | scale | updates: the FP8 recipe's scaling state),
// "step_index".
#pragma once

#include <string>

#include "workloads/training_state.h"

namespace ampbench {

void save_checkpoint(const TrainingState& s, const std::string& path);

// Loads into a fresh state of the same case. restore_scaler=false is the
// negative control that forgets the scaler state (the scale restarts at
// init_scale); restore_fp8=false the one that forgets the FP8 scaling state
// (a delayed recipe's histories restart empty, its scales at 1). Throws std::runtime_error naming the file and the entry on a
// missing or misshapen entry.
void load_checkpoint(TrainingState& s, const std::string& path, bool restore_scaler = true, bool restore_fp8 = true);

}  // namespace ampbench
