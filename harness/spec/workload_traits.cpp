#include "spec/workload_traits.h"

#include <algorithm>
#include <stdexcept>

namespace ampbench {

std::vector<std::string> WorkloadTraits::variants() const {
  std::vector<std::string> all = {to_string(Control::kNone)};
  for (const Control c : controls_) all.push_back(to_string(c));
  return all;
}

bool WorkloadTraits::offers(Control control) const {
  return control == Control::kNone || std::find(controls_.begin(), controls_.end(), control) != controls_.end();
}

const std::vector<WorkloadTraits>& all_workload_traits() {
  // The catalog: one entry per workload; its step is registered by the same
  // name in workload.cpp.
  static const std::vector<WorkloadTraits> catalog = {
      WorkloadTraits("plain")
          .controls({Control::kNoScaler, Control::kFreshScalerEachStep, Control::kResumeWithoutScalerState,
                     Control::kFp8FrozenScales, Control::kFp8InputAmaxFromWeight, Control::kFp8E4m3Gradients,
                     Control::kFp8HistoryNotRolled, Control::kFp8NoSaturation, Control::kFp8RowwiseUnroundedScales,
                     Control::kResumeWithoutFp8State, Control::kMxfp8CeilScales,
                     Control::kMxfp8Block16, Control::kMxfp8E8m0Wrap, Control::kNvfp4SameStream,
                     Control::kNvfp4NoHadamard, Control::kNvfp4Block32, Control::kNvfp4NoTensorScale,
                     Control::kFp8BlockwiseTile64, Control::kFp8BlockwiseTensorAmax})
          .capturable(true),
      WorkloadTraits("clip_norm").controls({Control::kClipBeforeUnscale}).engages(Engages::kClipNorm).capturable(true),
      WorkloadTraits("clip_value").controls({Control::kClipBeforeUnscale}).engages(Engages::kClipValue).capturable(true),
      WorkloadTraits("accumulation")
          .controls({Control::kStepEveryMicrobatch})
          .accumulates(true)
          .capturable(true)
          .engages(Engages::kAccumulation),
      WorkloadTraits("penalty").controls({Control::kPenaltyFromScaledGrads}).engages(Engages::kPenalty).second_order(true),
      WorkloadTraits("multi").controls({Control::kUpdatePerOptimizer}).models(2).capturable(true),
      WorkloadTraits("dataparallel").replication(Replication::kThreads),
      WorkloadTraits("ddp").controls({Control::kRankDisagreement}).replication(Replication::kRanks),
      // plain's step, trained to quality on real data over many seeds and
      // judged by the convergence rule (spec/convergence_settings.h).
      WorkloadTraits("converge").controls({Control::kFp16WeightsNoMaster, Control::kBf16WeightsNoMaster,
                                           Control::kScalerGrowthOff, Control::kScaleNeverRecovers,
                                           Control::kFp8FrozenScales})
          .converges(true),
  };
  return catalog;
}

const WorkloadTraits& workload_traits(const std::string& name) {
  std::string known;
  for (const WorkloadTraits& w : all_workload_traits()) {
    if (w.name() == name) return w;
    known += (known.empty() ? "" : ", ") + w.name();
  }
  throw std::invalid_argument("unknown workload '" + name + "' (known: " + known + ")");
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const WorkloadTraits& w : all_workload_traits()) names.push_back(w.name());
  return names;
}

}  // namespace ampbench
