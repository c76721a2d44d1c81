// Models given by file: what load_scripted_family refuses, that the view
// shares the scripted module's tensors, and that autocast reaches the
// scripted forward's ops. The modules are written in TorchScript here
// (torch::jit::Module::define), so no Python is needed.
#include "models/scripted.h"

#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/script.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "amp/autocast_guard.h"
#include "io/remove_tree.h"
#include "models/model.h"

namespace ampbench {
namespace {

namespace fs = std::filesystem;

class ScriptedFile : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ampbench-scripted-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { io::remove_tree(dir_.string()); }

  // Linear(in -> out) written in TorchScript, saved to NAME.pt.
  std::string linear(const std::string& name, int64_t in, int64_t out, const std::string& body) {
    torch::jit::Module m("Linear");
    m.register_parameter("weight", at::randn({out, in}).requires_grad_(true), /*is_buffer=*/false);
    m.register_parameter("bias", at::zeros({out}).requires_grad_(true), /*is_buffer=*/false);
    m.define("def forward(self, x):\n  " + body + "\n");
    const std::string path = (dir_ / (name + ".pt")).string();
    m.save(path);
    return path;
  }

  static ScriptedOptions options(const std::string& path, std::vector<int64_t> shape) {
    ScriptedOptions o;
    o.name = "mine";
    o.model.path = path;
    o.model.inputs = {ScriptedInput{InputKind::kFloat, std::move(shape), 0}};
    return o;
  }

  static std::string refusal(const ScriptedOptions& o, int classes = 3) {
    ModelSizes sizes;
    sizes.classes = classes;
    try {
      load_scripted_family(o, sizes, LossKind::kCrossEntropy);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(ScriptedFile, ABadFileIsRefusedWithTheReason) {
  EXPECT_NE(refusal(options((dir_ / "missing.pt").string(), {4})).find("no such file"), std::string::npos);
  std::ofstream(dir_ / "junk.pt") << "not a zip archive";
  EXPECT_NE(refusal(options((dir_ / "junk.pt").string(), {4})).find("not a TorchScript file"), std::string::npos);
  const std::string ok = linear("ok", 4, 3, "return torch.linear(x, self.weight, self.bias)");
  EXPECT_NE(refusal(options(ok, {5})).find("forward fails"), std::string::npos) << "a 5-wide input for a 4-wide layer";
  EXPECT_NE(refusal(options(ok, {4}), /*classes=*/7).find("shape"), std::string::npos) << "3 outputs for 7 classes";
  const std::string ints = linear("ints", 4, 3, "return torch.linear(x, self.weight, self.bias).argmax(1)");
  EXPECT_NE(refusal(options(ints, {4})).find("Long"), std::string::npos);
  torch::jit::Module frozen("Frozen");
  frozen.register_buffer("w", at::randn({3, 4}));
  frozen.define("def forward(self, x):\n  return torch.matmul(x, self.w.t())\n");
  frozen.save((dir_ / "frozen.pt").string());
  EXPECT_NE(refusal(options((dir_ / "frozen.pt").string(), {4})).find("no trainable"), std::string::npos);
  EXPECT_EQ(refusal(options(ok, {4})), "");
}

TEST_F(ScriptedFile, TheViewSharesTheScriptedTensorsAndAutocastReachesItsOps) {
  ModelSizes sizes;
  sizes.classes = 3;
  const auto family = load_scripted_family(
      options(linear("lin", 4, 3, "return torch.linear(x, self.weight, self.bias)"), {4}), sizes, LossKind::kCrossEntropy);
  EXPECT_EQ(family->parameters(sizes), 15);
  EXPECT_FALSE(family->replicable);
  EXPECT_TRUE(family->first_order_only.empty()) << family->first_order_only;
  Model m = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  EXPECT_EQ(m.module->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  const at::Tensor x = at::randn({2, 4});
  {
    // torch.linear is on autocast's lower-precision list: the scripted call
    // must come out in float16, as an eager one does.
    amp::AutocastGuard autocast(c10::kCPU, at::kHalf, true);
    EXPECT_EQ(m(x).scalar_type(), at::kHalf);
  }
  EXPECT_EQ(m(x).scalar_type(), at::kFloat);
  // A change through the view is a change of what the forward reads.
  {
    at::NoGradGuard no_grad;
    for (const at::Tensor& p : m.parameters()) p.zero_();
  }
  EXPECT_TRUE(at::equal(m(x), at::zeros({2, 3})));
  cast_model(m, at::kHalf, /*keep_batchnorm_fp32=*/true);
  EXPECT_EQ(m.parameters().front().scalar_type(), at::kHalf);
  EXPECT_EQ(m(x).scalar_type(), at::kFloat) << "O2's forward returns float32";
  // Gradients reach the view's parameters.
  Model fresh = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  training_loss(fresh(x), at::zeros({2}, at::kLong)).backward();
  for (const at::Tensor& p : fresh.parameters()) EXPECT_TRUE(p.grad().defined() && p.grad().abs().sum().item<double>() > 0);
}

TEST_F(ScriptedFile, ATiedTensorIsOneParameterUnderItsFirstName) {
  // GPT-2's tying: the head's weight is the embedding's tensor itself.
  const at::Tensor shared = at::randn({3, 4}).requires_grad_(true);
  torch::jit::Module head("Head");
  head.register_parameter("weight", shared, /*is_buffer=*/false);
  head.define("def forward(self, x):\n  return torch.linear(x, self.weight)\n");
  torch::jit::Module tied("Tied");
  tied.register_parameter("embed", shared, /*is_buffer=*/false);
  tied.register_module("head", head);
  tied.define("def forward(self, x):\n  return self.head.forward(torch.matmul(x, self.embed))\n");
  const std::string path = (dir_ / "tied.pt").string();
  tied.save(path);
  ModelSizes sizes;
  sizes.classes = 3;
  const auto family = load_scripted_family(options(path, {3}), sizes, LossKind::kCrossEntropy);
  EXPECT_EQ(family->parameters(sizes), 12) << "counted once";
  Model m = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  EXPECT_EQ(m.module->named_parameters().keys(), (std::vector<std::string>{"embed"}));
  const at::Tensor x = at::randn({2, 3});
  training_loss(m(x), at::zeros({2}, at::kLong)).backward();
  EXPECT_TRUE(m.parameters().front().grad().defined());
  // One tensor: casting it through the view casts both of its uses (a head
  // left in float32 would refuse the float16 activations).
  cast_model(m, at::kHalf, /*keep_batchnorm_fp32=*/true);
  EXPECT_EQ(m(x).scalar_type(), at::kFloat);
}

// A module owning BatchNorm's state under the class name `type`.
torch::jit::Module norm_like(const std::string& type, bool running_var = true) {
  torch::jit::Module m{c10::QualifiedName(type)};
  m.register_parameter("weight", at::ones({3}).requires_grad_(true), /*is_buffer=*/false);
  m.register_parameter("running_mean", at::zeros({3}), /*is_buffer=*/true);
  if (running_var) m.register_parameter("running_var", at::ones({3}), /*is_buffer=*/true);
  m.define("def forward(self, x):\n  return x * self.weight\n");
  return m;
}

TEST_F(ScriptedFile, O2KeepsBatchNormSubclassesInFloat32AndNothingElse) {
  // A file keeps a class's name, not its bases: timm's BatchNormAct2d is
  // known by its running statistics, torch.nn's InstanceNorm (which has
  // them too) and a module with only one of them are cast.
  torch::jit::Module root("Net");
  root.register_module("bn", norm_like("timm.layers.norm_act.BatchNormAct2d"));
  root.register_module("inorm", norm_like("torch.nn.modules.instancenorm.InstanceNorm1d"));
  root.register_module("half_state", norm_like("Mine", /*running_var=*/false));
  root.define("def forward(self, x):\n  return self.half_state.forward(self.inorm.forward(self.bn.forward(x)))\n");
  const std::string path = (dir_ / "norms.pt").string();
  root.save(path);
  ModelSizes sizes;
  sizes.classes = 3;
  const auto family = load_scripted_family(options(path, {3}), sizes, LossKind::kCrossEntropy);
  Model m = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  cast_model(m, at::kHalf, /*keep_batchnorm_fp32=*/true);
  std::map<std::string, at::ScalarType> dtypes;
  for (const auto& p : m.module->named_parameters()) dtypes[p.key()] = p.value().scalar_type();
  EXPECT_EQ(dtypes.at("bn.weight"), at::kFloat);
  EXPECT_EQ(dtypes.at("inorm.weight"), at::kHalf);
  EXPECT_EQ(dtypes.at("half_state.weight"), at::kHalf);
}

TEST_F(ScriptedFile, SeveralFloatInputsTravelPackedAndAreSplitInOrder) {
  torch::jit::Module m("Two");
  m.register_parameter("w", at::ones({1}).requires_grad_(true), false);
  // Output [batch, 3]: the first input's 2 values then the second's 1, scaled.
  m.define("def forward(self, a, b):\n  return torch.cat([a.flatten(1), b], 1) * self.w\n");
  const std::string path = (dir_ / "two.pt").string();
  m.save(path);
  ScriptedOptions o = options(path, {1, 2});
  o.model.inputs.push_back(ScriptedInput{InputKind::kFloat, {1}, 0});
  ModelSizes sizes;
  sizes.classes = 3;
  const auto family = load_scripted_family(o, sizes, LossKind::kCrossEntropy);
  EXPECT_EQ(family->sample_shape(sizes), std::vector<int64_t>{3});
  Model model = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  const at::Tensor packed = at::arange(6, at::kFloat).reshape({2, 3});
  EXPECT_TRUE(at::equal(model(packed), packed));
  o.model.inputs.back().kind = InputKind::kTokenIds;
  EXPECT_NE(refusal(o).find("only input"), std::string::npos);
}

// Inputs whose numel, first and last dimension and rank all differ (6, 4
// and 5 values as [2, 3], [4] and [1, 5]), so that an offset advanced by
// any of the others lands elsewhere; the forward reads each input through
// its own shape (row and column sums), not only flattened.
TEST_F(ScriptedFile, InputsOfUnlikeShapesAreSplitAtTheirOwnOffsets) {
  torch::jit::Module m("Three");
  m.register_parameter("w", at::ones({1}).requires_grad_(true), false);
  m.define(
      "def forward(self, a, b, c):\n"
      "  return torch.cat([a.sum(2), a.sum(1), b, c.flatten(1)], 1) * self.w\n");
  const std::string path = (dir_ / "three.pt").string();
  m.save(path);
  ScriptedOptions o = options(path, {2, 3});
  o.model.inputs.push_back(ScriptedInput{InputKind::kFloat, {4}, 0});
  o.model.inputs.push_back(ScriptedInput{InputKind::kFloat, {1, 5}, 0});
  ModelSizes sizes;
  sizes.classes = 2 + 3 + 4 + 5;
  const auto family = load_scripted_family(o, sizes, LossKind::kCrossEntropy);
  ASSERT_EQ(family->sample_shape(sizes), std::vector<int64_t>{15});
  Model model = make_model(*family, sizes, 1, c10::Device(c10::kCPU));
  const at::Tensor packed = at::arange(3 * 15, at::kFloat).reshape({3, 15});
  const at::Tensor a = packed.narrow(1, 0, 6).reshape({3, 2, 3});
  const at::Tensor expected = at::cat({a.sum(2), a.sum(1), packed.narrow(1, 6, 4), packed.narrow(1, 10, 5)}, 1);
  const at::Tensor got = model(packed);
  EXPECT_TRUE(at::equal(got, expected)) << "got\n" << got << "\nexpected\n" << expected;
}

}  // namespace
}  // namespace ampbench
