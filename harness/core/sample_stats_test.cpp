// The statistics of results.json's throughput block against numpy's
// definitions (standard deviations from Python's statistics.stdev, i.e.
// ddof=1; IQRs by numpy's linear percentile rule, worked by hand).
#include "core/sample_stats.h"

#include <gtest/gtest.h>

namespace ampbench {
namespace {

TEST(SampleStats, MatchNumpyOnAnEvenCount) {
  const std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(mean_of(v), 2.5);
  EXPECT_DOUBLE_EQ(median(v), 2.5);
  EXPECT_NEAR(stddev_of(v), 1.2909944487358056, 1e-15);
  EXPECT_DOUBLE_EQ(iqr_of(v), 1.5);
}

TEST(SampleStats, MatchNumpyOnAnOddCountWithAnOutlier) {
  const std::vector<double> v = {10, 11, 12, 13, 100};
  EXPECT_DOUBLE_EQ(median(v), 12);
  EXPECT_DOUBLE_EQ(iqr_of(v), 2);  // 13 - 11: robust to the outlier
  EXPECT_NEAR(stddev_of(v), 39.594191493197584, 1e-12);
}

TEST(SampleStats, FewValuesGiveZeroSpreadNotNan) {
  EXPECT_EQ(stddev_of({5}), 0);
  EXPECT_EQ(iqr_of({5}), 0);
  EXPECT_EQ(iqr_of({}), 0);
  EXPECT_EQ(mean_of({}), 0);
}

}  // namespace
}  // namespace ampbench
