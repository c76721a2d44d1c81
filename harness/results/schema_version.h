// The results file's schema version: written by the writer, accepted by
// every reader up to it (harness/results/SCHEMA.md). Free of LibTorch.
#pragma once

namespace ampbench {

// 2: check.envelope, check.bounds, check.max_ratio (the measured
// equivalence envelope), engagement; readers still accept 1.
inline constexpr int kResultsSchemaVersion = 2;
inline constexpr int kOldestResultsSchemaVersion = 1;

}  // namespace ampbench
