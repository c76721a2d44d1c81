// The verdict's decision rule: a case whose distance lands just beyond its
// bound is decided by more evidence, not by a wider bound.
//
// A new seed, a new torch or a new GPU changes rounding alike, and a correct
// case then exceeds its bound now and then (the single-seed rate measured by
// ci/calibrate-verdict.sh, docs/calibration.md). A real mistake exceeds it
// on every seed. So a case that failed only by distance, and by at most the
// grey limit (the margin every negative control keeps), is run again with
// its fp32 baseline and replicas from `seeds` fresh seeds, one after the
// other: the first that passes clears it; it fails only when every one
// fails too. With seeds independent, a correct case then fails with
// probability p^(seeds+1) instead of p.
#pragma once

#include <cstdint>

#include "check/checker.h"

namespace ampbench {

struct ConfirmationRule {
  int seeds = 2;            // fresh seeds a borderline case may take; 0: decide on the suite's seed alone
  double grey_limit = 3.0;  // largest distance/bound still called borderline
};

// The single-seed rate at which a correct case exceeds its bound: the worst
// measured on any suite (one in 105 for the real architectures under seeds
// they were not tuned on), rounded up; smoke's own calibration bounds it
// lower (docs/checks.md, "The decision rule"; docs/calibration.md).
inline constexpr double kCalibratedExceedRate = 0.01;

// A verdict that failed by distance alone (no scale audit, skipped step,
// non-finite value or rank disagreement), at most `grey_limit` times its bound.
bool is_borderline(const Verdict& v, const ConfirmationRule& rule);

// The k-th fresh seed (k >= 1) of a case seeded `seed`: apart from the
// suite's seeds and from each other.
std::uint64_t confirmation_seed(std::uint64_t seed, int k);

// Records one fresh seed's outcome; a pass clears the verdict (its failures
// move to overruled_failures). Returns whether the verdict is now decided.
bool add_confirmation(Verdict& v, const Confirmation& c);

// What the rule promises a correct case and a run of `cases` correct cases,
// given the single-seed rate `p`.
double per_case_false_alarm(double p, const ConfirmationRule& rule);
double per_run_false_alarm(double p, const ConfirmationRule& rule, int cases);

}  // namespace ampbench
