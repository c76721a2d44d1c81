#include "fp8/nvfp4_linear.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/autograd.h>

#include <algorithm>

#include "fp8/nvfp4_cast.h"

namespace ampbench::fp8 {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Seeds of the sign vector and the rounding stream: apart, so that the
// signs are not the stream's first draws.
uint64_t stream_seed(int64_t seed) { return static_cast<uint64_t>(seed) + 1; }

// hp [rows, cols] with zero columns up to a whole number of blocks.
at::Tensor padded(const at::Tensor& hp, int64_t block) {
  const int64_t pad = (block - hp.size(1) % block) % block;
  return (pad == 0 ? hp : at::constant_pad_nd(hp, {0, pad})).contiguous();
}

struct Operand {
  at::Tensor hp;  // [rows, reduced], padded
  int index = 0;  // 0 input, 1 weight, 2 output gradient
  bool stochastic = false;
  at::Tensor raw;  // before the Hadamard transform (undefined: none)
};

constexpr int64_t kLoggedDraws = 8;

std::vector<float> floats(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kFloat).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

at::Tensor amax16(const at::Tensor& hp) {
  return at::amax(at::abs(hp.to(at::kFloat).reshape({hp.size(0), -1, 16})), {-1});
}

void log_cast(Nvfp4Stream& s, int gemm, const Operand& op, const Nvfp4Tensor& t, const at::Tensor& uniform) {
  at::NoGradGuard no_grad;
  Nvfp4CastTrace trace{gemm, op.hp.size(0), floats(amax16(op.hp)), at::abs(op.hp).max().to(at::kFloat).item<float>(),
                       {}, floats(t.block_scale), {}};
  if (op.raw.defined()) trace.raw_block_amax = floats(amax16(op.raw));
  if (uniform.defined()) trace.draws = floats(uniform.flatten().narrow(0, 0, std::min(kLoggedDraws, uniform.numel())));
  s.casts[op.index].push_back(std::move(trace));
}

Nvfp4Tensor cast(const Operand& op, int gemm, Nvfp4Stream& s) {
  const RecipeOptions& r = s.recipe;
  Nvfp4CastOptions o{r.nvfp4_block(), r.nvfp4_tensor_scale(), at::Tensor()};
  if (op.stochastic) o.uniform = at::rand(op.hp.sizes(), s.rng, at::kFloat);
  Nvfp4Tensor t = to_nvfp4(op.hp, o);
  if (s.log_enabled) log_cast(s, gemm, op, t, o.uniform);
  return t;
}

// a [M, R] @ b [N, R]^T, both cast along R and dequantized to a's dtype, as
// torchao's emulated GEMMs; below autocast as they are.
at::Tensor gemm(int which, const Operand& a, const Operand& b, Nvfp4Stream& s) {
  const c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::autocast_dispatch_keyset);
  const at::Tensor da = nvfp4_dequantize(cast(a, which, s));
  const at::Tensor db = nvfp4_dequantize(cast(b, which, s));
  return at::mm(da, db.t());
}

struct Nvfp4Matmul : torch::autograd::Function<Nvfp4Matmul> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input2d, const at::Tensor& weight,
                            Nvfp4Stream* stream) {
    const RecipeOptions& r = stream->recipe;
    ctx->save_for_backward({input2d, weight});
    // The stream lives in the layer's Fp8LinearState, which outlives every
    // backward of its forwards; it carries the recipe it was made for.
    ctx->saved_data["stream"] = reinterpret_cast<int64_t>(stream);
    const int64_t block = r.nvfp4_block();
    return gemm(0, {padded(input2d, block), 0}, {padded(weight, block), 1}, *stream);
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto* stream = reinterpret_cast<Nvfp4Stream*>(ctx->saved_data["stream"].toInt());
    const RecipeOptions& r = stream->recipe;
    if (!r.nvfp4_fresh_stream()) stream->rng.set_current_seed(stream_seed(r.nvfp4_seed()));
    const int64_t block = r.nvfp4_block();
    const at::Tensor g = grads[0].contiguous();
    const at::Tensor& x = saved[0];
    const at::Tensor& w = saved[1];
    const at::Tensor grad_input = gemm(1, {padded(g, block), 2, true}, {padded(w.t(), block), 1}, *stream);
    Operand g_t{padded(g.t(), block), 2, true, at::Tensor()};
    Operand x_t{padded(x.t(), block), 0, false, at::Tensor()};
    // The raw operands go to the log, which the audit compares the cast with.
    g_t.raw = g_t.hp;
    x_t.raw = x_t.hp;
    if (r.nvfp4_hadamard()) {
      g_t.hp = random_hadamard(g_t.hp, stream->signs);
      x_t.hp = random_hadamard(x_t.hp, stream->signs);
    }
    const at::Tensor grad_weight = gemm(2, g_t, x_t, *stream);
    return {grad_input, grad_weight, at::Tensor()};
  }
};

}  // namespace

Nvfp4Stream::Nvfp4Stream(const RecipeOptions& recipe)
    : recipe(recipe),
      signs(hadamard_signs(recipe.nvfp4_seed())),
      rng(at::make_generator<at::CPUGeneratorImpl>(stream_seed(recipe.nvfp4_seed()))) {}

at::Tensor nvfp4_matmul(const at::Tensor& input2d, const at::Tensor& weight, Nvfp4Stream& stream) {
  TORCH_CHECK(input2d.scalar_type() == weight.scalar_type(), "nvfp4 Linear: the input is ", input2d.scalar_type(),
              " and the weight ", weight.scalar_type(), "; the emulated NVFP4 GEMM takes one dtype for both");
  TORCH_CHECK(input2d.device().is_cpu(), "nvfp4 Linear: emulated on the CPU only, not on ", input2d.device());
  return Nvfp4Matmul::apply(input2d, weight, &stream);
}

}  // namespace ampbench::fp8
