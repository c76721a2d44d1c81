// Forward seeding (forward_rng.h): every forward of a recorded step, the
// micro-batches of an accumulation step and a probe's extra forwards among
// them, draws its dropout masks from its own seed, (case seed, step, index),
// so that a replay and the Python twin see the same masks; a timed run is
// left alone.
#include "workloads/forward_rng.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "runner/tiny_case_test_util.h"
#include "workloads/training_state.h"

namespace ampbench {
namespace {

// What a dropout mask of the next forward would draw.
std::vector<float> next_forward_draw(TrainingState& s) {
  const std::unique_lock<std::mutex> rng = seed_next_forward(s);
  const at::Tensor u = torch::rand({8});
  return {u.data_ptr<float>(), u.data_ptr<float>() + u.numel()};
}

std::vector<float> draw_seeded(std::uint64_t seed) {
  const std::unique_lock<std::mutex> rng = seed_generators(seed);
  const at::Tensor u = torch::rand({8});
  return {u.data_ptr<float>(), u.data_ptr<float>() + u.numel()};
}

class ForwardRng : public ::testing::Test {
 protected:
  CaseSpec spec = [] {
    CaseSpec c = test::tiny_mlp_case("accumulation", Precision::kFp32, optim::Kind::kSgd, 2);
    c.seed = 11;
    return c;
  }();
  std::unique_ptr<TrainingState> state = make_training_state(spec, c10::Device(c10::kCPU));
};

TEST_F(ForwardRng, EachForwardOfAStepHasItsOwnSeed) {
  state->record_engagement = true;
  std::set<std::vector<float>> seen;
  for (int step = 0; step < 2; ++step) {
    state->step_index = step;
    for (int forward = 0; forward < 3; ++forward) {
      const std::vector<float> drawn = next_forward_draw(*state);
      EXPECT_EQ(drawn, draw_seeded(forward_seed(spec.seed, step, forward))) << "step " << step << ", forward " << forward;
      seen.insert(drawn);
    }
  }
  EXPECT_EQ(seen.size(), 6u) << "two forwards shared a mask";
}

TEST_F(ForwardRng, ASecondRunOfTheCaseSeesTheSameMasks) {
  auto again = make_training_state(spec, c10::Device(c10::kCPU));
  state->record_engagement = again->record_engagement = true;
  for (int forward = 0; forward < 2; ++forward) EXPECT_EQ(next_forward_draw(*state), next_forward_draw(*again));
}

TEST_F(ForwardRng, ATimedRunIsNotReseeded) {
  state->record_engagement = false;
  const std::vector<float> stream = draw_seeded(5);
  torch::manual_seed(5);
  EXPECT_EQ(next_forward_draw(*state), stream) << "a timed forward was reseeded";
  EXPECT_EQ(state->forwards_in_step, 0);
}

}  // namespace
}  // namespace ampbench
