// The equivalence envelope: how far from the fp32 baseline correct training
// lands when only rounding noise of a precision's size separates the two.
//
// Mixed-precision training differs from fp32 by one rounding (relative error
// up to u) in many operations of every step, and training amplifies such
// differences step after step. So the distance a correct case may have from
// fp32 is not a constant: it grows with the step count, at a rate set by the
// workload, model, optimizer and hardware. The runner measures that rate: it
// trains R fp32 replicas of the baseline, each with rounding noise of the
// precision's unit roundoff injected (spec.perturbation, the suite's noise
// model), and the envelope of each metric is the largest distance of any
// replica from the unperturbed baseline. Per step, the loss envelope is a
// running maximum: a replica's deviation crosses zero when its loss passes
// the baseline's, which says nothing about the size of the spread.
#pragma once

#include <optional>
#include <vector>

#include "runner/case_record.h"

namespace ampbench {

struct Envelope {
  Precision precision = Precision::kFp16;
  double unit_roundoff = 0;
  NoiseModel noise = NoiseModel::kGrad;
  int replicas = 0;
  std::vector<double> loss_rel;  // per step: max over replicas and steps so far
  double param_rel = 0;          // final parameters, relative to the fp32 update
  double optimizer_state_rel = 0;
  // Outputs on the probe batch, relative to the fp32 outputs' change
  // (runner/probe.h); 0 when the baseline has no probe.
  double probe_rel = 0;
};

// The envelope of `precision` around `baseline`, or nullopt when the
// baseline ran no replicas for it.
std::optional<Envelope> envelope_for(const CaseRecord& baseline, Precision precision);

}  // namespace ampbench
