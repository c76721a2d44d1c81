#include "spec/replica_perturbation.h"

#include <gtest/gtest.h>

namespace ampbench {
namespace {

bool same(const Perturbation& a, const Perturbation& b) {
  return a.unit_roundoff == b.unit_roundoff && a.noise == b.noise && a.seed == b.seed;
}

CaseSpec baseline(NoiseModel noise) {
  CaseSpec b;
  b.seed = 7;
  b.envelope.noise = noise;
  return b;
}

TEST(ReplicaPerturbation, O2AndO3TakeFp16sReplicasAndBf16ItsOwn) {
  const CaseSpec b = baseline(NoiseModel::kInit);
  for (int r = 0; r < 3; ++r) {
    const Perturbation fp16 = replica_perturbation(b, Precision::kFp16, r);
    EXPECT_TRUE(same(replica_perturbation(b, Precision::kO2, r), fp16)) << r;
    EXPECT_TRUE(same(replica_perturbation(b, Precision::kO3, r), fp16)) << r;
    EXPECT_FALSE(same(replica_perturbation(b, Precision::kBf16, r), fp16)) << r;
    EXPECT_EQ(fp16.noise, NoiseModel::kInit);
  }
  EXPECT_TRUE(share_replicas(b, Precision::kO2, Precision::kFp16));
  EXPECT_FALSE(share_replicas(b, Precision::kBf16, Precision::kFp16));
}

TEST(ReplicaPerturbation, EachReplicaAndEachBaselineSeedIsItsOwn) {
  const CaseSpec b = baseline(NoiseModel::kInit);
  EXPECT_NE(replica_perturbation(b, Precision::kFp16, 0).seed, replica_perturbation(b, Precision::kFp16, 1).seed);
  CaseSpec other = b;
  other.seed = 8;
  EXPECT_NE(replica_perturbation(b, Precision::kFp16, 0).seed, replica_perturbation(other, Precision::kFp16, 0).seed);
}

TEST(ReplicaPerturbation, TheFp8RecipesShareGradientNoiseApartFromNvfp4AndFp16) {
  // FP8 keeps float32 weights: gradient noise whatever the suite's model.
  const CaseSpec b = baseline(NoiseModel::kInit);
  const Perturbation tensorwise = replica_perturbation(b, Precision::kFp8Tensorwise, 0);
  EXPECT_EQ(tensorwise.noise, NoiseModel::kGrad);
  for (Precision p : {Precision::kFp8Rowwise, Precision::kFp8Delayed, Precision::kMxfp8, Precision::kFp8Blockwise})
    EXPECT_TRUE(same(replica_perturbation(b, p, 0), tensorwise)) << PrecisionPolicy(p).name();
  EXPECT_FALSE(share_replicas(b, Precision::kNvfp4, Precision::kFp8Tensorwise));
  EXPECT_FALSE(share_replicas(b, Precision::kFp16, Precision::kFp8Tensorwise));
}

TEST(ReplicaPerturbation, Fp16SharesNothingWithFp8EvenUnderGradientNoise) {
  // Same noise model, another unit roundoff: not the same replicas.
  const CaseSpec b = baseline(NoiseModel::kGrad);
  EXPECT_FALSE(share_replicas(b, Precision::kFp16, Precision::kFp8Rowwise));
  EXPECT_TRUE(share_replicas(b, Precision::kTf32, Precision::kO2));
}

}  // namespace
}  // namespace ampbench
