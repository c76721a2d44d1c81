// Fingerprints must be equal for equal runs and differ for a single flipped
// bit: the fleet report's silent-corruption check rests on both.
#include "runner/determinism.h"

#include <gtest/gtest.h>

#include <ATen/ops/full.h>
#include <ATen/ops/ne.h>

#include <cmath>
#include <cstring>

#include "runner/bitflip.h"
#include "runner/runner.h"
#include "runner/tiny_case_test_util.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

CaseSpec tiny(Precision precision, optim::Kind optimizer) {
  CaseSpec c = test::tiny_mlp_case("plain", precision, optimizer, 6);
  c.id = "plain/mlp/fingerprint";
  c.lr = 0.01;
  c.baseline_id = "(none)";
  return c;
}

CaseRecord run(const CaseSpec& spec, int bitflip_step = -1) {
  RunOptions options;
  options.fingerprint = true;
  options.inject_bitflip_step = bitflip_step;
  CaseRecord rec = Runner(options).run(spec);
  EXPECT_EQ(rec.status, RunStatus::kRan) << rec.reason;
  return rec;
}

TEST(Determinism, Fnv1a64MatchesTheReferenceVectors) {
  EXPECT_EQ(fnv1a64_hex("", 0), "cbf29ce484222325");
  EXPECT_EQ(fnv1a64_hex("a", 1), "af63dc4c8601ec8c");
}

TEST(Determinism, TheSameCaseRunTwiceHasTheSameFingerprint) {
  enable_determinism(/*cuda=*/false);
  for (const auto& [precision, optimizer] :
       {std::pair{Precision::kFp32, optim::Kind::kSgd}, std::pair{Precision::kFp16, optim::Kind::kAdamW},
        std::pair{Precision::kBf16, optim::Kind::kAdam}}) {
    const CaseSpec spec = tiny(precision, optimizer);
    const CaseRecord a = run(spec), b = run(spec);
    ASSERT_TRUE(a.fingerprint && b.fingerprint);
    EXPECT_EQ(a.fingerprint->combined, b.fingerprint->combined) << static_cast<int>(precision);
    EXPECT_EQ(a.fingerprint->combined.size(), 16u);
    EXPECT_NE(a.fingerprint->loss, a.fingerprint->final_params);
  }
}

TEST(Determinism, NoFingerprintUnlessAsked) {
  EXPECT_FALSE(Runner().run(tiny(Precision::kFp32, optim::Kind::kSgd)).fingerprint.has_value());
}

TEST(Determinism, OneFlippedGradientBitChangesTheFingerprintButNotTheRunBefore) {
  const CaseSpec spec = tiny(Precision::kFp16, optim::Kind::kAdamW);
  const CaseRecord clean = run(spec), flipped = run(spec, /*bitflip_step=*/3);
  ASSERT_TRUE(clean.fingerprint && flipped.fingerprint);
  EXPECT_NE(clean.fingerprint->combined, flipped.fingerprint->combined);
  EXPECT_NE(clean.fingerprint->final_params, flipped.fingerprint->final_params);
  // The losses up to and including the flipped step were computed before it
  // took effect: the corruption starts where it was injected.
  for (int t = 0; t <= 3; ++t) EXPECT_EQ(clean.loss[t], flipped.loss[t]) << "step " << t;
}

TEST(Determinism, TheFlipIsTheLowestFloat16BitOfTheLargestElement) {
  at::Tensor t = at::full({3, 4}, 0.5f);
  t.index_put_({1, 2}, -3.0f);
  // 3 = 1.5 x 2: its float16 ulp is 2^-9, and the bit flipped was clear.
  const float expected = -3.0f - std::ldexp(1.0f, -9);
  const at::Tensor f = flip_low_mantissa_bit(t);
  EXPECT_EQ(at::ne(f, t).sum().item<int64_t>(), 1);
  EXPECT_EQ(f.index({1, 2}).item<float>(), expected);
  EXPECT_EQ(t.index({1, 2}).item<float>(), -3.0f);  // the input is left alone
  const at::Tensor h = flip_low_mantissa_bit(t.to(at::kHalf));
  EXPECT_EQ(at::ne(h, t.to(at::kHalf)).sum().item<int64_t>(), 1);
  EXPECT_EQ(h.index({1, 2}).item<float>(), expected);
}

}  // namespace
}  // namespace ampbench
