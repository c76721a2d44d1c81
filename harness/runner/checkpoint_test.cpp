// Checkpoints: a round trip restores every tensor and the scaler exactly, a
// damaged file is refused naming the entry, and a resumed case is held to
// the uninterrupted run bitwise (the control that forgets the scaler fails).
#include "runner/checkpoint.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "runner/runner.h"
#include "runner/tiny_case_test_util.h"
#include "workloads/workload.h"

namespace ampbench {
namespace {

CaseSpec tiny(const std::string& impl = "loop") {
  CaseSpec c = test::tiny_mlp_case("plain", Precision::kFp16, optim::Kind::kAdamW, 8);
  c.id = "plain/mlp/fp16/adamw@t";
  c.optimizer_impl = optim::parse_impl(impl);
  c.lr = 0.003;
  c.scaler.growth_interval = 2;
  c.baseline_id = "(none)";
  return c;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ampbench-" + name + "-" + std::to_string(::getpid()))).string();
}

TEST(Checkpoint, ARoundTripRestoresEveryTensorAndTheScaler) {
  for (const std::string impl : {"loop", "foreach", "fused"}) {
    const CaseSpec spec = tiny(impl);
    auto a = make_training_state(spec, c10::Device(c10::kCPU));
    const Workload& w = find_workload("plain");
    SyntheticData data({spec.model, spec.sizes, spec.seed}, c10::Device(c10::kCPU));
    for (int t = 0; t < 3; ++t) {  // a few steps, so there is optimizer state
      a->step_index = t;
      w.step(*a, {data.host(t)});
    }
    const std::string path = temp_path("ckpt-" + impl);
    save_checkpoint(*a, path);
    auto b = make_training_state(spec, c10::Device(c10::kCPU));
    load_checkpoint(*b, path);
    std::remove(path.c_str());
    const auto pa = a->parameters(), pb = b->parameters();
    for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(at::equal(pa[i], pb[i])) << impl << " parameter " << i;
    EXPECT_EQ(a->scaler.state_dict(), b->scaler.state_dict()) << impl;
    EXPECT_EQ(a->step_index, b->step_index);
    // One more identical step on each: still identical (the optimizer state came along).
    w.step(*a, {data.host(3)});
    w.step(*b, {data.host(3)});
    const auto qa = a->parameters(), qb = b->parameters();
    for (size_t i = 0; i < qa.size(); ++i) EXPECT_TRUE(at::equal(qa[i], qb[i])) << impl << " after a step, parameter " << i;
  }
}

TEST(Checkpoint, AFileWithoutAnEntryIsRefusedNamingIt) {
  const CaseSpec spec = tiny();
  auto a = make_training_state(spec, c10::Device(c10::kCPU));
  const std::string path = temp_path("ckpt-missing");
  save_checkpoint(*a, path);
  CaseSpec other = spec;
  other.model = find_model_family("cnn");  // another model: its parameter names are not in the file
  other.sizes.channels = 4;
  other.sizes.image = 8;
  auto b = make_training_state(other, c10::Device(c10::kCPU));
  try {
    load_checkpoint(*b, path);
    FAIL() << "a checkpoint of another model loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("checkpoint has no entry"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(Checkpoint, AResumedCaseIsTheUninterruptedRunAndTheForgetfulControlIsNot) {
  CaseSpec spec = tiny();
  spec.resume_at = 4;
  spec.inject_inf_step = 4;  // an inf right after the resume point
  const CaseRecord resumed = Runner().run(spec);
  ASSERT_EQ(resumed.status, RunStatus::kRan) << resumed.reason;
  EXPECT_FALSE(resumed.resume_mismatch) << *resumed.resume_mismatch;
  spec.variant = Control::kResumeWithoutScalerState;
  const CaseRecord forgot = Runner().run(spec);
  ASSERT_TRUE(forgot.resume_mismatch);
  EXPECT_NE(forgot.resume_mismatch->find("loss scale after step 4"), std::string::npos) << *forgot.resume_mismatch;
}

}  // namespace
}  // namespace ampbench
