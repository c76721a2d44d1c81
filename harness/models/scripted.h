// A model given by file: a TorchScript module (torch.jit.save, or
// `python -m reference.export`) that a suite names under "models". Its
// parameters are ordinary tensors and its forward runs op by op through the
// dispatcher, so autocast, GradScaler, O2's casts, the c10d Reducer and every
// check apply to it as to a registered family.
#pragma once

#include <memory>
#include <string>

#include "spec/loss.h"
#include "spec/model_family.h"

namespace ampbench {

struct ScriptedOptions {
  std::string name;  // the suite's name for it: case ids, results
  ScriptedModel model;
  TargetKind target = TargetKind::kClass;
  bool padded_tokens = false;  // token ids end in padding (id 0)
  // One sample's forward FLOPs, as the export counted them (0: unknown,
  // no MFU is reported).
  double forward_flops = 0;
};

// The family of a TorchScript file: loaded once here to check that it can
// train (it loads, it holds trainable parameters, and one forward on a tiny
// batch of the described inputs returns one floating tensor of the shape
// the loss needs), then loaded afresh for every model a case builds.
// `sizes` must hold the classes (class targets) and gets seq and vocab from
// a token input. Throws std::invalid_argument naming the problem.
std::shared_ptr<const ModelFamily> load_scripted_family(const ScriptedOptions& options, ModelSizes& sizes,
                                                        LossKind loss);

}  // namespace ampbench
