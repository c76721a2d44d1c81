// The distances every equivalence check measures, one definition each: the
// checker, the fp32 noise floor and the envelope replicas all use these.
#pragma once

#include <vector>

namespace ampbench {

// |value - reference| / |reference| (inf when not finite).
double loss_deviation(double value, double reference);

// ||value - reference|| / ||reference - origin||: relative to how far the
// reference moved from `origin` (the initial weights), so a run that never
// learned is 100% off however large the weights are. An empty origin means
// relative to ||reference||. Infinite on a size mismatch or non-finite values.
double relative_l2(const std::vector<float>& value, const std::vector<float>& reference,
                   const std::vector<float>& origin);

}  // namespace ampbench
