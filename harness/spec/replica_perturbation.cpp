#include "spec/replica_perturbation.h"

#include <string>

namespace ampbench {
namespace {

struct ReplicaNoise {
  double unit_roundoff = 0;
  NoiseModel noise = NoiseModel::kGrad;
  bool operator==(const ReplicaNoise&) const = default;
};

ReplicaNoise replica_noise(const CaseSpec& baseline, Precision precision) {
  const PrecisionPolicy policy(precision);
  // FP8 rounds no stored weight (they stay float32): its rounding enters
  // through each step's GEMMs, so its replicas get gradient noise.
  return {policy.unit_roundoff(), policy.is_fp8() ? NoiseModel::kGrad : baseline.envelope.noise};
}

// The precision whose seed the set takes: the first with the same noise.
Precision seeding_precision(const CaseSpec& baseline, Precision precision) {
  const ReplicaNoise noise = replica_noise(baseline, precision);
  for (const std::string& name : PrecisionPolicy::names()) {
    const Precision first = PrecisionPolicy::parse(name).precision();
    if (replica_noise(baseline, first) == noise) return first;
  }
  return precision;
}

}  // namespace

Perturbation replica_perturbation(const CaseSpec& baseline, Precision compared, int index) {
  const ReplicaNoise noise = replica_noise(baseline, compared);
  const auto seeding = static_cast<std::uint64_t>(seeding_precision(baseline, compared));
  // A seed per replica and noise, apart from the weight and data seeds.
  return Perturbation{noise.unit_roundoff, noise.noise,
                      baseline.seed * 1000003 + 1009 * seeding + static_cast<std::uint64_t>(index)};
}

bool share_replicas(const CaseSpec& baseline, Precision a, Precision b) {
  return seeding_precision(baseline, a) == seeding_precision(baseline, b);
}

}  // namespace ampbench
