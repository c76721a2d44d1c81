// The large tier's decoder: causal, its attention kernel named, its FLOPs
// counted per block; and the channels_last CNN computes what the NCHW one does.
#include "models/decoder.h"

#include <ATen/ops/allclose.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/randn.h>
#include <gtest/gtest.h>
#include <torch/utils.h>

#include "models/flops.h"
#include "models/model.h"

namespace ampbench {
namespace {

ModelSizes small_decoder(int layers) {
  ModelSizes s;
  s.batch = 2;
  s.seq = 8;
  s.d_model = 32;
  s.heads = 4;
  s.ffn = 64;
  s.layers = layers;
  s.classes = 5;
  return s;
}

TEST(Decoder, APositionSeesNoLaterOne) {
  torch::manual_seed(3);
  DecoderBlock block(small_decoder(1));
  const at::Tensor x = at::randn({2, 8, 32});
  at::Tensor changed = x.clone();
  changed.select(1, 5).add_(1.0);
  const at::Tensor a = block->forward(x), b = block->forward(changed);
  EXPECT_TRUE(at::equal(a.narrow(1, 0, 5), b.narrow(1, 0, 5))) << "positions before 5 must not see position 5";
  EXPECT_FALSE(at::allclose(a.narrow(1, 5, 3), b.narrow(1, 5, 3)));
}

TEST(Decoder, ItsBlocksAreNamedAsThePythonOracleNamesThem) {
  const Model m = make_model(*find_model_family("decoder"), small_decoder(2), 1, c10::Device(c10::kCPU));
  const std::vector<std::string> names = m.module->named_parameters().keys();
  EXPECT_EQ(names.front(), "blocks.0.ln1.weight");
  EXPECT_EQ(names.at(names.size() - 3), "ln_f.bias");
  EXPECT_EQ(names.back(), "head.bias");
  EXPECT_EQ(m(at::randn({2, 8, 32})).sizes(), (std::vector<int64_t>{2, 5}));
}

TEST(Decoder, TheAttentionKernelItPicksIsNamed) {
  const Model m = make_model(*find_model_family("decoder"), small_decoder(1), 1, c10::Device(c10::kCPU));
  ASSERT_TRUE(m.attention_backend);
  const std::string backend = m.attention_backend(at::randn({2, 8, 32}));
  EXPECT_TRUE(backend == "flash" || backend == "math") << backend;  // what a CPU offers
  EXPECT_FALSE(make_model(*find_model_family("mlp"), ModelSizes{}, 1, c10::Device(c10::kCPU)).attention_backend);
}

TEST(Decoder, FlopsGrowByOneBlockPerLayerAndCountTheFullAttentionSquare) {
  const ModelSizes one = small_decoder(1), three = small_decoder(3);
  const double head = 2.0 * 32 * 5;
  const double block = forward_flops_per_sample(*find_model_family("decoder"), one) - head;
  EXPECT_DOUBLE_EQ(forward_flops_per_sample(*find_model_family("decoder"), three), 3 * block + head);
  const double seq = 8, d = 32;
  const double expected = seq * (2 * d * 3 * d + 2 * d * d + 2 * d * 64 + 2 * 64 * d) + 4 * seq * seq * d;
  EXPECT_DOUBLE_EQ(block, expected);
}

TEST(ChannelsLast, TheCnnComputesTheSameFunctionInNhwc) {
  ModelSizes s;
  s.channels = 8;
  s.image = 8;
  s.classes = 4;
  const Model nchw = make_model(*find_model_family("cnn"), s, 7, c10::Device(c10::kCPU));
  s.channels_last = true;
  const Model nhwc = make_model(*find_model_family("cnn"), s, 7, c10::Device(c10::kCPU));
  const at::Tensor conv = nhwc.module->named_parameters()["conv1.weight"];
  EXPECT_TRUE(conv.is_contiguous(at::MemoryFormat::ChannelsLast));
  const at::Tensor x = at::randn({4, 8, 8, 8});
  EXPECT_TRUE(at::allclose(nchw(x), nhwc(x), 1e-5, 1e-6));
}

}  // namespace
}  // namespace ampbench
