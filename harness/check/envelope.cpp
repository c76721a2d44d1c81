#include "check/envelope.h"

#include <algorithm>
#include <cmath>

#include "core/distance.h"

namespace ampbench {

std::optional<Envelope> envelope_for(const CaseRecord& baseline, Precision precision) {
  const auto set = std::find_if(baseline.replica_sets.begin(), baseline.replica_sets.end(),
                                [&](const ReplicaSet& s) {
                                  return std::find(s.precisions.begin(), s.precisions.end(), precision) !=
                                         s.precisions.end();
                                });
  if (set == baseline.replica_sets.end() || set->replicas.empty()) return std::nullopt;
  Envelope e;
  e.precision = precision;
  e.unit_roundoff = set->unit_roundoff;
  e.noise = set->noise;
  e.replicas = static_cast<int>(set->replicas.size());
  e.loss_rel.assign(baseline.loss.size(), 0.0);
  for (const ReplicaRecord& r : set->replicas) {
    for (size_t t = 0; t < e.loss_rel.size(); ++t) {
      const double d = t < r.loss.size() ? loss_deviation(r.loss[t], baseline.loss[t]) : INFINITY;
      e.loss_rel[t] = std::max(e.loss_rel[t], d);
    }
    e.param_rel = std::max(e.param_rel, relative_l2(r.final_params, baseline.final_params, baseline.initial_params));
    e.optimizer_state_rel = std::max(e.optimizer_state_rel, relative_l2(r.optimizer_state, baseline.optimizer_state, {}));
    if (!baseline.final_probe.empty())
      e.probe_rel = std::max(e.probe_rel, relative_l2(r.final_probe, baseline.final_probe, baseline.initial_probe));
  }
  for (size_t t = 1; t < e.loss_rel.size(); ++t) e.loss_rel[t] = std::max(e.loss_rel[t], e.loss_rel[t - 1]);
  return e;
}

}  // namespace ampbench
