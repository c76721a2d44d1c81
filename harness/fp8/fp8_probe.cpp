// ampbench_fp8_probe: one FP8 Linear (harness/fp8) over given steps, for
// reference/python/tests/test_fp8_linear_vs_torchao.py, which holds it to
// torchao's Float8Linear and to a delayed-scaling reference.
//
//   ampbench_fp8_probe < request.json > result.json
//   ampbench_fp8_probe --serve    (one request per line in, one answer per
//                                  line out, a refusal as {"error": reason})
//
// request: {"recipe": {"scaling": "tensorwise"|"rowwise"|"delayed"|"mxfp8"|"nvfp4"|"blockwise",
//                      "history_len": 16, "margin": 0, "amax_compute": "max",
//                      "mx_scale_mode": "floor"|"rceil"|"ceil", "mx_block": 32,
//                      "nvfp4_block": 16, "nvfp4_seed": 0,
//                      and the faults of fp8/fp8_recipe.h by name},
//           "dtype": "float32"|"bfloat16" (input and output gradient),
//           "weight_dtype": the weight's and bias's (default: dtype; float32
//           with a bfloat16 dtype is autocast's case, float32 master weights),
//           "device": "cpu" (default)|"cuda",
//           "weight": [[float, ...], ...], "bias": [float, ...],
//           "steps": [{"input": [[...]], "grad_output": [[...]]}, ...]}
// result:  {"steps": [{"output", "grad_input", "grad_weight", "grad_bias":
//                      flat row-major values, "scales": [input, weight,
//                      grad_output scale after the step (delayed)]}, ...]}
//
// or, for the conversion plan (fp8/conversion.h) of a Sequential of Linear
// layers with a ReLU after each but the last:
// request: {"plan": {"layers": [[in, out], ...], "convert_first": false,
//                    "convert_last": false}}
// result:  {"plan": [{"name", "in_features", "out_features", "converted",
//                     "reason"}, ...]}
//
// or a few SGD steps of that Sequential with the plan's layers in FP8 and
// the rest under bfloat16 autocast when asked (float32 master weights):
// request: {"train": {"layers": [[in, out], ...], "recipe": {...},
//                     "convert_first", "convert_last", "autocast": true,
//                     "lr": 0.1, "params": [[weight rows, bias], ...],
//                     "steps": [{"input": [[...]], "labels": [int, ...]}]}}
// result:  {"losses": [float, ...], "params": [[weight flat, bias], ...]}
//
// or one MX cast (fp8/mx_cast.h) of a 2-D tensor along its last dimension:
// request: {"mx_cast": {"input": [[...]], "dtype": "float32", "recipe": {...}}}
// result:  {"data": flat e4m3 values as floats, "exponent": flat uint8 E8M0}
//
// or one NVFP4 cast (fp8/nvfp4_cast.h), stochastic when draws are given,
// after the random Hadamard transform when "hadamard" is true:
// request: {"nvfp4_cast": {"input": [[...]], "dtype": "float32", "recipe": {...},
//                          "uniform": [[...]] (optional), "hadamard": false}}
// result:  {"data": flat E2M1 values, "block_scale": flat E4M3 scales as
//           floats, "tensor_scale": float or null, "signs": the 16 signs}
// or one blockwise cast (fp8/blockwise_cast.h) of a 2-D tensor:
// request: {"blockwise_cast": {"input": [[...]], "dtype": "float32",
//                              "tiles": "1x128"|"128x1"|"128x128", "tile": 128,
//                              "own_amax": true}}
// result:  {"data": flat e4m3 values, "scale": flat float32 dequantizing
//           scales, "scale_shape": [tiles down, tiles across]}
// A refused recipe exits 2 with the reason on stderr.
#include <ATen/ATen.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/optim/sgd.h>

#include <exception>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "amp/autocast_guard.h"
#include "core/json.h"
#include "fp8/blockwise_cast.h"
#include "fp8/conversion.h"
#include "fp8/fp8_linear.h"
#include "fp8/mx_cast.h"
#include "fp8/nvfp4_cast.h"

namespace ampbench::fp8 {
namespace {

at::Tensor matrix_of(const nlohmann::json& rows, at::ScalarType dtype) {
  std::vector<float> flat;
  for (const auto& row : rows)
    for (const auto& v : row) flat.push_back(v.get<float>());
  const int64_t n = static_cast<int64_t>(rows.size());
  return at::tensor(flat, at::kFloat).reshape({n, n == 0 ? 0 : -1}).to(dtype);
}

std::vector<float> flat(const at::Tensor& t) {
  const at::Tensor v = t.detach().to(at::kFloat).cpu().contiguous();
  return {v.data_ptr<float>(), v.data_ptr<float>() + v.numel()};
}

at::ScalarType dtype_of(const std::string& name) {
  if (name == "float32") return at::kFloat;
  if (name == "bfloat16") return at::kBFloat16;
  throw std::invalid_argument("dtype must be float32 or bfloat16, not '" + name + "'");
}

RecipeOptions read_recipe(const nlohmann::json& j) {
  const std::string name = j.at("scaling").get<std::string>();
  const std::optional<Scaling> scaling = parse_scaling(name);
  if (!scaling)
    throw std::invalid_argument("unknown fp8 recipe '" + name + "' (tensorwise, rowwise, delayed, mxfp8, nvfp4, blockwise)");
  const std::string mode_name = j.value("mx_scale_mode", std::string("floor"));
  const std::optional<MxScaleMode> mode = parse_mx_scale_mode(mode_name);
  if (!mode) throw std::invalid_argument("unknown mx_scale_mode '" + mode_name + "' (floor, rceil, ceil)");
  const std::string algo = j.value("amax_compute", std::string("max"));
  const std::optional<AmaxCompute> amax = parse_amax_compute(algo);
  if (!amax) throw std::invalid_argument("unknown amax_compute '" + algo + "' (max, most_recent)");
  return RecipeOptions(*scaling)
      .history_len(j.value("history_len", int64_t{16}))
      .margin(j.value("margin", int64_t{0}))
      .amax_compute(*amax)
      .saturate(j.value("saturate", true))
      .e4m3_gradients(j.value("e4m3_gradients", false))
      .freeze_scales(j.value("freeze_scales", false))
      .input_amax_from_weight(j.value("input_amax_from_weight", false))
      .roll_history(j.value("roll_history", true))
      .mx_scale_mode(*mode)
      .mx_block(j.value("mx_block", kMxBlock))
      .mx_clamp_exponent(j.value("mx_clamp_exponent", true))
      .nvfp4_block(j.value("nvfp4_block", kNvfp4Block))
      .nvfp4_tensor_scale(j.value("nvfp4_tensor_scale", true))
      .nvfp4_hadamard(j.value("nvfp4_hadamard", true))
      .nvfp4_fresh_stream(j.value("nvfp4_fresh_stream", true))
      .nvfp4_seed(j.value("nvfp4_seed", int64_t{0}))
      .blockwise_tile(j.value("blockwise_tile", kBlockwiseTileEdge))
      .blockwise_own_amax(j.value("blockwise_own_amax", true));
}

nlohmann::json run_mx_cast(const nlohmann::json& request) {
  RecipeOptions r = read_recipe(request.at("recipe"));
  r.validate();
  const at::Tensor hp = matrix_of(request.at("input"), dtype_of(request.value("dtype", std::string("float32"))));
  const MxTensor mx = to_mx(hp, {r.mx_scale_mode(), r.mx_block(), r.mx_clamp_exponent()});
  const at::Tensor e = mx.exponent.to(at::kLong).contiguous();
  return {{"data", flat(mx.data)}, {"exponent", std::vector<int64_t>(e.data_ptr<int64_t>(), e.data_ptr<int64_t>() + e.numel())}};
}

nlohmann::json run_blockwise_cast(const nlohmann::json& request) {
  const at::Tensor hp = matrix_of(request.at("input"), dtype_of(request.value("dtype", std::string("float32"))));
  const std::string tiles = request.at("tiles").get<std::string>();
  const int64_t tile = request.value("tile", kBlockwiseTile);
  const bool own = request.value("own_amax", true);
  BlockwiseCastOptions o;
  if (tiles == "1x128") o = act_tiles(tile, own);
  else if (tiles == "128x1") o = act_t_tiles(tile, own);
  else if (tiles == "128x128") o = weight_tiles(tile, own);
  else throw std::invalid_argument("tiles must be 1x128, 128x1 or 128x128, not '" + tiles + "'");
  const BlockwiseTensor t = blockwise_cast(hp, o);
  return {{"data", flat(t.data)}, {"scale", flat(t.scale)}, {"scale_shape", t.scale.sizes().vec()}};
}

nlohmann::json run_nvfp4_cast(const nlohmann::json& request) {
  RecipeOptions r = read_recipe(request.at("recipe"));
  r.validate();
  at::Tensor hp = matrix_of(request.at("input"), dtype_of(request.value("dtype", std::string("float32"))));
  const at::Tensor signs = hadamard_signs(r.nvfp4_seed());
  if (request.value("hadamard", false)) hp = random_hadamard(hp, signs);
  Nvfp4CastOptions o{r.nvfp4_block(), r.nvfp4_tensor_scale(), at::Tensor()};
  if (request.contains("uniform")) o.uniform = matrix_of(request.at("uniform"), at::kFloat);
  const Nvfp4Tensor t = to_nvfp4(hp, o);
  nlohmann::json tensor_scale = nullptr;
  if (t.tensor_scale.defined()) tensor_scale = t.tensor_scale.item<float>();
  return {{"data", flat(t.data)}, {"block_scale", flat(t.block_scale)}, {"tensor_scale", tensor_scale},
          {"signs", flat(signs)}};
}

nlohmann::json run(const nlohmann::json& request) {
  const at::ScalarType dtype = dtype_of(request.at("dtype").get<std::string>());
  const at::ScalarType weight_dtype = dtype_of(request.value("weight_dtype", request.at("dtype").get<std::string>()));
  const at::Device device(request.value("device", std::string("cpu")));
  Fp8LinearState state(read_recipe(request.at("recipe")), device);
  const at::Tensor weight = matrix_of(request.at("weight"), weight_dtype).to(device).requires_grad_(true);
  const at::Tensor bias = at::tensor(request.at("bias").get<std::vector<float>>(), at::kFloat)
                              .to(weight_dtype)
                              .to(device)
                              .requires_grad_(true);
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : request.at("steps")) {
    const at::Tensor input = matrix_of(step.at("input"), dtype).to(device).requires_grad_(true);
    const at::Tensor out = fp8_linear(input, weight, bias, state);
    out.backward(matrix_of(step.at("grad_output"), dtype).to(device));
    steps.push_back({{"output", flat(out)},
                     {"grad_input", flat(input.grad())},
                     {"grad_weight", flat(weight.grad())},
                     {"grad_bias", flat(bias.grad())},
                     {"scales", {state.input.scale.item<float>(), state.weight.scale.item<float>(),
                                 state.grad_output.scale.item<float>()}}});
    weight.mutable_grad().reset();
    bias.mutable_grad().reset();
  }
  return {{"steps", steps}};
}

torch::nn::Sequential sequential_of(const nlohmann::json& layers) {
  torch::nn::Sequential net;
  for (size_t i = 0; i < layers.size(); ++i) {
    net->push_back(torch::nn::Linear(layers[i].at(0).get<int64_t>(), layers[i].at(1).get<int64_t>()));
    if (i + 1 < layers.size()) net->push_back(torch::nn::ReLU());
  }
  return net;
}

ConversionOptions conversion_of(const nlohmann::json& request) {
  return ConversionOptions()
      .convert_first(request.value("convert_first", false))
      .convert_last(request.value("convert_last", false))
      .alignment(request.value("alignment", int64_t{16}));
}

nlohmann::json run_plan(const nlohmann::json& request) {
  const torch::nn::Sequential net = sequential_of(request.at("layers"));
  nlohmann::json out = nlohmann::json::array();
  for (const LinearChoice& c : plan_conversion(*net, conversion_of(request)))
    out.push_back({{"name", c.name}, {"in_features", c.in_features}, {"out_features", c.out_features},
                   {"converted", c.converted}, {"reason", c.reason}});
  return {{"plan", out}};
}

// The Sequential's forward, each planned Linear through fp8_linear with its
// own state (nullptr: not converted).
at::Tensor forward(torch::nn::Sequential& net, const std::vector<std::unique_ptr<Fp8LinearState>>& states,
                   at::Tensor x) {
  for (size_t i = 0; i < net->size(); ++i) {
    auto* linear = net[i]->as<torch::nn::LinearImpl>();
    if (linear == nullptr) {
      x = net[i]->as<torch::nn::ReLUImpl>()->forward(x);
    } else if (states[i]) {
      x = fp8_linear(x, linear->weight, linear->bias, *states[i]);
    } else {
      x = linear->forward(x);
    }
  }
  return x;
}

nlohmann::json run_train(const nlohmann::json& request) {
  torch::nn::Sequential net = sequential_of(request.at("layers"));
  const RecipeOptions recipe = read_recipe(request.at("recipe"));
  const std::vector<LinearChoice> plan = plan_conversion(*net, conversion_of(request));
  std::vector<std::unique_ptr<Fp8LinearState>> states(net->size());
  size_t linear_index = 0;
  int64_t converted = 0;
  for (size_t i = 0; i < net->size(); ++i) {
    auto* linear = net[i]->as<torch::nn::LinearImpl>();
    if (linear == nullptr) continue;
    const auto& p = request.at("params").at(linear_index);
    torch::NoGradGuard no_grad;
    linear->weight.copy_(matrix_of(p.at(0), at::kFloat));
    linear->bias.copy_(at::tensor(p.at(1).get<std::vector<float>>(), at::kFloat));
    if (!plan[linear_index++].converted) continue;
    // NVFP4: each converted layer's stream seeded apart, as models/linear.cpp's attach_fp8.
    RecipeOptions own = recipe;
    if (recipe.scaling() == Scaling::kNvfp4) own.nvfp4_seed(recipe.nvfp4_seed() + converted++);
    states[i] = std::make_unique<Fp8LinearState>(own, at::kCPU);
  }
  torch::optim::SGD opt(net->parameters(), torch::optim::SGDOptions(request.at("lr").get<double>()));
  nlohmann::json losses = nlohmann::json::array();
  for (const auto& step : request.at("steps")) {
    opt.zero_grad();
    at::Tensor loss;
    {
      amp::AutocastGuard autocast(at::kCPU, at::kBFloat16, request.value("autocast", false));
      const at::Tensor out = forward(net, states, matrix_of(step.at("input"), at::kFloat));
      loss = at::cross_entropy_loss(out, at::tensor(step.at("labels").get<std::vector<int64_t>>(), at::kLong));
    }
    loss.backward();
    opt.step();
    losses.push_back(loss.item<float>());
  }
  nlohmann::json params = nlohmann::json::array();
  for (size_t i = 0; i < net->size(); ++i)
    if (const auto* linear = net[i]->as<torch::nn::LinearImpl>())
      params.push_back({flat(linear->weight), flat(linear->bias)});
  return {{"losses", losses}, {"params", params}};
}

nlohmann::json answer(const nlohmann::json& request) {
  if (request.contains("plan")) return run_plan(request.at("plan"));
  if (request.contains("mx_cast")) return run_mx_cast(request.at("mx_cast"));
  if (request.contains("blockwise_cast")) return run_blockwise_cast(request.at("blockwise_cast"));
  if (request.contains("nvfp4_cast")) return run_nvfp4_cast(request.at("nvfp4_cast"));
  if (request.contains("train")) return run_train(request.at("train"));
  return run(request);
}

// The request's problem in one line, or "" when it was answered.
std::string answer_into(const std::string& text, nlohmann::json& result) {
  try {
    result = answer(nlohmann::json::parse(text));
    return "";
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  } catch (const std::exception& e) {
    return e.what();
  }
}

// One request per line, one answer per line, a refusal as {"error": ...}:
// the Python tests keep one probe for their run instead of loading LibTorch
// for each of their ~180 requests (about 0.4 s each).
int serve() {
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json result;
    const std::string problem = answer_into(line, result);
    // replace: a parse error quotes the line, which may not be UTF-8.
    std::cout << (problem.empty() ? result : nlohmann::json{{"error", problem}})
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << std::endl;
  }
  return 0;
}

}  // namespace
}  // namespace ampbench::fp8

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--serve") return ampbench::fp8::serve();
  if (argc != 1) {
    std::cerr << "usage: ampbench_fp8_probe [--serve] < request.json\n";
    return 2;
  }
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  nlohmann::json result;
  const std::string problem = ampbench::fp8::answer_into(text, result);
  if (!problem.empty()) {
    std::cerr << "ampbench_fp8_probe: " << problem << "\n";
    return 2;
  }
  std::cout << result.dump() << "\n";
  return 0;
}
