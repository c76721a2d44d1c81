#include "check/engagement.h"
#include "spec/workload_traits.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ampbench {
namespace {

CaseRecord clip_norm_record(const std::vector<double>& before, const std::vector<double>& after) {
  CaseRecord r;
  r.spec.workload = &workload_traits("clip_norm");
  r.spec.max_norm = 1.0;
  for (size_t t = 0; t < before.size(); ++t) {
    Engagement e;
    e.grad_norm = before[t];
    e.clipped = before[t] > r.spec.max_norm;
    e.clipped_norm = after[t];
    r.engagement.push_back(e);
    r.loss.push_back(1.0);
  }
  return r;
}

std::string failure(const CaseRecord& r) { return engagement_failure(r, summarize_engagement(r)).value_or(""); }

TEST(Engagement, AClipThatClipsOnAThirdOfTheStepsEngages) {
  const CaseRecord r = clip_norm_record({2.0, 0.5, 0.7}, {1.0, 0.5, 0.7});
  const EngagementSummary s = summarize_engagement(r);
  EXPECT_NEAR(*s.clipped_steps, 1.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(*s.max_grad_norm, 2.0);
  EXPECT_EQ(failure(r), "");
}

TEST(Engagement, AClipThatNeverClipsIsAnErrorNamingTheMechanism) {
  const std::string why = failure(clip_norm_record({0.5, 0.6, 0.7}, {0.5, 0.6, 0.7}));
  EXPECT_NE(why.find("clip_norm did not engage"), std::string::npos) << why;
  EXPECT_NE(why.find("0.5-0.7"), std::string::npos) << why;
}

TEST(Engagement, AVacuousClipNamesItsSettingTheMeasuredRangeAndAValueThatEngages) {
  const std::string why = failure(clip_norm_record({0.31, 0.4, 0.48}, {0.31, 0.4, 0.48}));
  EXPECT_NE(why.find("max_norm 1 is above every gradient norm of this run (0.31-0.48), so nothing was clipped"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("a max_norm below 0.31 clips on every step"), std::string::npos) << why;
  // Clipping too rarely is not "above every norm".
  const std::string rare = failure(clip_norm_record({2.0, 0.5, 0.5, 0.5}, {1.0, 0.5, 0.5, 0.5}));
  EXPECT_EQ(rare.find("above every gradient norm"), std::string::npos) << rare;
}

TEST(Engagement, GradientsLeftAboveMaxNormAfterClippingAreAnError) {
  // A skipped clip, another norm type or a missed parameter all leave the
  // true 2-norm above max_norm; an inf step (skipped by the scaler) does not count.
  const std::string why = failure(clip_norm_record({2.0, 3.0, INFINITY}, {1.0, 1.5, NAN}));
  EXPECT_NE(why.find("step 1"), std::string::npos) << why;
  EXPECT_NE(why.find("1.5x the limit"), std::string::npos) << why;
}

TEST(Engagement, O3sFloat16GradientsMayExceedTheLimitByTheirRoundingOnly) {
  // clip_grad_value_(0.01) in float16 leaves 0.0100021: 1.0002x the limit.
  CaseRecord r = clip_norm_record({2.0, 3.0}, {1.0002, 1.0});
  EXPECT_NE(failure(r).find("did not bound"), std::string::npos) << "float32 gradients get no float16 slack";
  r.spec.precision = PrecisionPolicy(Precision::kO3);
  EXPECT_EQ(failure(r), "");
  r = clip_norm_record({2.0, 3.0}, {1.01, 1.0});  // a real miss is still one in float16
  r.spec.precision = PrecisionPolicy(Precision::kO3);
  EXPECT_NE(failure(r).find("did not bound"), std::string::npos) << failure(r);
}

TEST(Engagement, NegativeControlsAreExempt) {
  CaseRecord r = clip_norm_record({0.5}, {0.5});
  r.spec.variant = Control::kClipBeforeUnscale;
  EXPECT_EQ(failure(r), "");
}

TEST(Engagement, PenaltyAndAccumulationRules) {
  CaseRecord p;
  p.spec.workload = &workload_traits("penalty");
  p.loss = {1.0, 1.0};
  p.engagement.resize(2);
  p.engagement[0].penalty_ratio = 0.001;
  p.engagement[1].penalty_ratio = 0.003;
  EXPECT_NE(failure(p).find("penalty did not engage"), std::string::npos);
  p.engagement[1].penalty_ratio = 0.1;
  EXPECT_EQ(failure(p), "");

  CaseRecord a;
  a.spec.workload = &workload_traits("accumulation");
  a.spec.iters_to_accumulate = 4;
  a.loss = {1.0};
  a.engagement.resize(1);
  a.engagement[0].micro_batches = 1;
  EXPECT_NE(failure(a).find("1 micro-batches"), std::string::npos);
  a.engagement[0].micro_batches = 4;
  EXPECT_EQ(failure(a), "");
}

TEST(Engagement, ScaleGrowthsBackoffsAndPerOptimizerSkipsComeFromTheTrajectory) {
  CaseRecord r;
  r.spec.scaler_enabled = true;
  r.spec.scaler.init_scale = 8;
  r.scale = {16, 8, 8, 16};
  r.optimizer_skipped = {{false, false}, {true, false}, {false, false}, {false, true}};
  const EngagementSummary s = summarize_engagement(r);
  EXPECT_EQ(s.scale_growths, 2);
  EXPECT_EQ(s.scale_backoffs, 1);
  EXPECT_EQ(s.optimizer_steps, (std::vector<int>{3, 3}));
  EXPECT_EQ(s.optimizer_skips, (std::vector<int>{1, 1}));
}

}  // namespace
}  // namespace ampbench
