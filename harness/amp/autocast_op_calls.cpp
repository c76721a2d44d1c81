#include "amp/autocast_op_calls.h"

#include <ATen/ATen.h>

#include <map>

namespace ampbench::amp {
namespace {

using In = std::vector<at::Tensor>;
using Args = nlohmann::json;

// A missing or mistyped argument is the op list's fault, not the op's.
template <typename T>
T arg(const Args& args, const char* key) {
  if (!args.is_object() || !args.contains(key)) throw AutocastOpsError(std::string("args.") + key + " is missing");
  try {
    return args.at(key).get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw AutocastOpsError(std::string("args.") + key + ": " + e.what());
  }
}

int64_t reduction(const Args& args) {
  const auto name = arg<std::string>(args, "reduction");
  if (name == "mean") return at::Reduction::Mean;
  if (name == "sum") return at::Reduction::Sum;
  if (name == "none") return at::Reduction::None;
  throw AutocastOpsError("args.reduction: '" + name + "' is not mean, sum or none");
}

using Calls = std::map<std::string, OpCall>;

// One function per autocast list (CUDA's, as in the JSON). Where Python's
// call goes through a wrapper, the comment names the ATen op it reaches, so
// both sides run the same kernel on the same bits.
Calls lower_precision_calls() {
  return {
      {"matmul", {2, [](const In& x, const Args&) { return at::matmul(x[0], x[1]); }}},
      {"mm", {2, [](const In& x, const Args&) { return at::mm(x[0], x[1]); }}},
      {"bmm", {2, [](const In& x, const Args&) { return at::bmm(x[0], x[1]); }}},
      {"addmm", {3, [](const In& x, const Args&) { return at::addmm(x[0], x[1], x[2]); }}},
      {"addbmm", {3, [](const In& x, const Args&) { return at::addbmm(x[0], x[1], x[2]); }}},
      {"baddbmm", {3, [](const In& x, const Args&) { return at::baddbmm(x[0], x[1], x[2]); }}},
      {"linear", {3, [](const In& x, const Args&) { return at::linear(x[0], x[1], x[2]); }}},
      {"conv1d", {3, [](const In& x, const Args&) { return at::conv1d(x[0], x[1], x[2]); }}},
      {"conv2d", {3, [](const In& x, const Args&) { return at::conv2d(x[0], x[1], x[2]); }}},
      {"conv3d", {3, [](const In& x, const Args&) { return at::conv3d(x[0], x[1], x[2]); }}},
      {"conv_transpose1d", {3, [](const In& x, const Args&) { return at::conv_transpose1d(x[0], x[1], x[2]); }}},
      {"conv_transpose2d", {3, [](const In& x, const Args&) { return at::conv_transpose2d(x[0], x[1], x[2]); }}},
      {"conv_tbc",
       {3, [](const In& x, const Args& a) { return at::conv_tbc(x[0], x[1], x[2], arg<int64_t>(a, "pad")); }}},
      {"prelu", {2, [](const In& x, const Args&) { return at::prelu(x[0], x[1]); }}},
      {"scaled_dot_product_attention",
       {3, [](const In& x, const Args&) { return at::scaled_dot_product_attention(x[0], x[1], x[2]); }}},
      {"linalg_vecdot", {2, [](const In& x, const Args&) { return at::linalg_vecdot(x[0], x[1]); }}},
      {"mv", {2, [](const In& x, const Args&) { return at::mv(x[0], x[1]); }}},
      {"addmv", {3, [](const In& x, const Args&) { return at::addmv(x[0], x[1], x[2]); }}},
      {"addr", {3, [](const In& x, const Args&) { return at::addr(x[0], x[1], x[2]); }}},
      {"einsum",
       {2, [](const In& x, const Args& a) { return at::einsum(arg<std::string>(a, "equation"), {x[0], x[1]}); }}},
      {"linalg_multi_dot", {3, [](const In& x, const Args&) { return at::linalg_multi_dot({x[0], x[1], x[2]}); }}},
      {"gru_cell", {6, [](const In& x, const Args&) { return at::gru_cell(x[0], x[1], x[2], x[3], x[4], x[5]); }}},
  };
}

Calls fp32_calls() {
  return {
      {"softmax", {1, [](const In& x, const Args& a) { return at::softmax(x[0], arg<int64_t>(a, "dim")); }}},
      {"log_softmax", {1, [](const In& x, const Args& a) { return at::log_softmax(x[0], arg<int64_t>(a, "dim")); }}},
      {"layer_norm",
       {3,
        [](const In& x, const Args& a) {
          return at::layer_norm(x[0], arg<std::vector<int64_t>>(a, "normalized_shape"), x[1], x[2],
                                arg<double>(a, "eps"));
        }}},
      {"group_norm",
       {3,
        [](const In& x, const Args& a) {
          return at::group_norm(x[0], arg<int64_t>(a, "num_groups"), x[1], x[2], arg<double>(a, "eps"));
        }}},
      // aten::norm.Scalar (Python: torch.ops.aten.norm.Scalar; torch.norm reaches linalg_vector_norm)
      {"norm", {1, [](const In& x, const Args& a) { return at::norm(x[0], arg<double>(a, "p")); }}},
      {"linalg_vector_norm",
       {1, [](const In& x, const Args& a) { return at::linalg_vector_norm(x[0], arg<double>(a, "ord")); }}},
      {"cumsum", {1, [](const In& x, const Args& a) { return at::cumsum(x[0], arg<int64_t>(a, "dim")); }}},
      {"prod", {1, [](const In& x, const Args&) { return at::prod(x[0]); }}},
      {"sum", {1, [](const In& x, const Args&) { return at::sum(x[0]); }}},
      {"exp", {1, [](const In& x, const Args&) { return at::exp(x[0]); }}},
      {"log", {1, [](const In& x, const Args&) { return at::log(x[0]); }}},
      {"pow", {1, [](const In& x, const Args& a) { return at::pow(x[0], arg<double>(a, "exponent")); }}},
      {"rsqrt", {1, [](const In& x, const Args&) { return at::rsqrt(x[0]); }}},
      {"acos", {1, [](const In& x, const Args&) { return at::acos(x[0]); }}},
      {"softplus", {1, [](const In& x, const Args&) { return at::softplus(x[0]); }}},
      {"logsumexp", {1, [](const In& x, const Args& a) { return at::logsumexp(x[0], {arg<int64_t>(a, "dim")}); }}},
      {"mse_loss", {2, [](const In& x, const Args&) { return at::mse_loss(x[0], x[1]); }}},
      {"l1_loss", {2, [](const In& x, const Args&) { return at::l1_loss(x[0], x[1]); }}},
      {"smooth_l1_loss",
       {2,
        [](const In& x, const Args& a) {
          return at::smooth_l1_loss(x[0], x[1], at::Reduction::Mean, arg<double>(a, "beta"));
        }}},
      {"kl_div", {2, [](const In& x, const Args& a) { return at::kl_div(x[0], x[1], reduction(a)); }}},
      // F.cross_entropy -> aten::cross_entropy_loss; F.nll_loss -> aten::nll_loss_nd
      {"cross_entropy_loss", {2, [](const In& x, const Args&) { return at::cross_entropy_loss(x[0], x[1]); }}},
      {"nll_loss", {2, [](const In& x, const Args&) { return at::nll_loss_nd(x[0], x[1]); }}},
      {"binary_cross_entropy_with_logits",
       {2, [](const In& x, const Args&) { return at::binary_cross_entropy_with_logits(x[0], x[1]); }}},
      {"binary_cross_entropy", {2, [](const In& x, const Args&) { return at::binary_cross_entropy(x[0], x[1]); }}},
      {"cosine_similarity",
       {2, [](const In& x, const Args& a) { return at::cosine_similarity(x[0], x[1], arg<int64_t>(a, "dim")); }}},
      {"cdist", {2, [](const In& x, const Args&) { return at::cdist(x[0], x[1]); }}},
      {"dist", {2, [](const In& x, const Args&) { return at::dist(x[0], x[1]); }}},
      {"trace", {1, [](const In& x, const Args&) { return at::trace(x[0]); }}},
  };
}

Calls promote_calls() {
  return {
      {"cat", {2, [](const In& x, const Args&) { return at::cat({x[0], x[1]}); }}},
      {"stack", {2, [](const In& x, const Args&) { return at::stack({x[0], x[1]}); }}},
      {"index_copy",
       {3, [](const In& x, const Args& a) { return at::index_copy(x[0], arg<int64_t>(a, "dim"), x[1], x[2]); }}},
      {"addcdiv",
       {3, [](const In& x, const Args& a) { return at::addcdiv(x[0], x[1], x[2], arg<double>(a, "value")); }}},
      {"addcmul",
       {3, [](const In& x, const Args& a) { return at::addcmul(x[0], x[1], x[2], arg<double>(a, "value")); }}},
      {"atan2", {2, [](const In& x, const Args&) { return at::atan2(x[0], x[1]); }}},
      {"bilinear", {4, [](const In& x, const Args&) { return at::bilinear(x[0], x[1], x[2], x[3]); }}},
      {"cross", {2, [](const In& x, const Args& a) { return at::cross(x[0], x[1], arg<int64_t>(a, "dim")); }}},
      {"dot", {2, [](const In& x, const Args&) { return at::dot(x[0], x[1]); }}},
      {"vdot", {2, [](const In& x, const Args&) { return at::vdot(x[0], x[1]); }}},
      {"index_put",
       {3,
        [](const In& x, const Args&) {
          c10::List<std::optional<at::Tensor>> indices;
          indices.push_back(x[1]);
          return at::index_put(x[0], indices, x[2]);
        }}},
      {"tensordot",
       {2,
        [](const In& x, const Args& a) {
          return at::tensordot(x[0], x[1], arg<std::vector<int64_t>>(a, "dims_a"),
                               arg<std::vector<int64_t>>(a, "dims_b"));
        }}},
      {"scatter_add",
       {3, [](const In& x, const Args& a) { return at::scatter_add(x[0], arg<int64_t>(a, "dim"), x[1], x[2]); }}},
      // F.grid_sample(align_corners=False) -> aten::grid_sampler(bilinear = 0, zeros = 0)
      {"grid_sampler", {2, [](const In& x, const Args&) { return at::grid_sampler(x[0], x[1], 0, 0, false); }}},
  };
}

const Calls& op_calls() {
  static const Calls calls = [] {
    Calls all = lower_precision_calls();
    all.merge(fp32_calls());
    all.merge(promote_calls());
    return all;
  }();
  return calls;
}

}  // namespace

const OpCall* find_op_call(const std::string& op) {
  const auto& calls = op_calls();
  const auto it = calls.find(op);
  return it == calls.end() ? nullptr : &it->second;
}

}  // namespace ampbench::amp
