#include "models/scripted.h"

#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/nn/module.h>
#include <torch/script.h>

#include <filesystem>
#include <set>
#include <stdexcept>

#include "amp/autocast_guard.h"
#include "models/model.h"

namespace ampbench {
namespace {

// torch::nn::Module view of a TorchScript module: the very same parameter
// and buffer tensors (not copies) under the same names, so that moving,
// casting, hooking or checkpointing the view acts on what the scripted
// forward reads. A tensor reachable under several names (a tied weight:
// GPT-2's lm_head.weight is its wte.weight) is registered once, under the
// first name in Python's named_parameters order, as Python's
// named_parameters() yields it: LibTorch does not remove duplicates, so the
// optimizer would otherwise step it twice and the Reducer bucket it twice.
using Seen = std::set<const c10::TensorImpl*>;
class ScriptedNode : public torch::nn::Module {
 public:
  ScriptedNode(const torch::jit::Module& m, Seen& seen);
};

// A scripted BatchNorm: O2 keeps it in float32 (model.h).
class ScriptedBatchNorm : public ScriptedNode, public BatchNormView {
 public:
  using ScriptedNode::ScriptedNode;
};

// Apex keeps every subclass of torch.nn's _BatchNorm in float32, but a file
// keeps only its class's own name, not its bases: torch.nn's BatchNorms are
// known by name, a subclass (timm's BatchNormAct2d, in all of timm's CNNs)
// by the state every BatchNorm owns, its running statistics. torch.nn's
// InstanceNorm owns them too and is not one. reference/python/scripted.py
// applies the same rule.
bool is_scripted_batchnorm(const torch::jit::Module& m) {
  const std::string type = m.type()->name() ? m.type()->name()->qualifiedName() : "";
  if (type.find("torch.nn.modules.batchnorm.") != std::string::npos) return true;
  if (type.find("torch.nn.modules.instancenorm.") != std::string::npos) return false;
  bool mean = false, var = false;
  for (const auto& b : m.named_buffers(/*recurse=*/false)) {
    mean |= b.name == "running_mean";
    var |= b.name == "running_var";
  }
  return mean && var;
}

ScriptedNode::ScriptedNode(const torch::jit::Module& m, Seen& seen) {
  for (const auto& p : m.named_parameters(/*recurse=*/false))
    if (seen.insert(p.value.unsafeGetTensorImpl()).second) register_parameter(p.name, p.value, p.value.requires_grad());
  for (const auto& b : m.named_buffers(/*recurse=*/false))
    if (seen.insert(b.value.unsafeGetTensorImpl()).second) register_buffer(b.name, b.value);
  for (const auto& child : m.named_children()) {
    if (is_scripted_batchnorm(child.value))
      register_module(child.name, std::make_shared<ScriptedBatchNorm>(child.value, seen));
    else
      register_module(child.name, std::make_shared<ScriptedNode>(child.value, seen));
  }
}

// An error's first line, without LibTorch's C++ backtrace: it goes into a
// one-line refusal.
std::string first_line(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  const std::string what = c10_error ? c10_error->what_without_backtrace() : e.what();
  return what.substr(0, what.find('\n'));
}

// What PyTorch said, in one line: an op failing inside the TorchScript
// interpreter comes wrapped ("The following operation failed ...", the
// TorchScript traceback), with the op's own error as the last "...Error: "
// line.
std::string pytorch_message(const std::exception& e) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
  const std::string what = c10_error ? c10_error->what_without_backtrace() : e.what();
  if (what.rfind("The following operation failed in the TorchScript interpreter", 0) != 0) return first_line(e);
  std::string cause;
  size_t start = 0;
  while (start < what.size()) {
    const size_t end = std::min(what.find('\n', start), what.size());
    const std::string line = what.substr(start, end - start);
    if (const size_t colon = line.find("Error: "); colon != std::string::npos && line.find(' ') > colon)
      cause = line.substr(colon + 7);
    start = end + 1;
  }
  return cause.empty() ? first_line(e) : cause;
}

// Far beyond any model's file; /proc/kcore (128 TiB) and the like are not one.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 40;

torch::jit::Module load_module(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw std::invalid_argument(path + ": no such file");
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) throw std::invalid_argument(path + ": cannot be read: " + ec.message());
  if (bytes > kMaxFileBytes) throw std::invalid_argument(path + ": larger than 1 TiB, not a model file");
  try {
    torch::jit::Module m = torch::jit::load(path, c10::Device(c10::kCPU));
    m.train(true);
    return m;
  } catch (const c10::Error& e) {
    throw std::invalid_argument(path + ": not a TorchScript file (torch.jit.load: " + first_line(e) + ")");
  }
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// The forward's arguments from one packed batch tensor (ScriptedModel).
std::vector<torch::jit::IValue> unpack(const std::vector<ScriptedInput>& inputs, const at::Tensor& x) {
  if (inputs.size() == 1) return {x};
  std::vector<torch::jit::IValue> args;
  int64_t offset = 0;
  for (const ScriptedInput& in : inputs) {
    std::vector<int64_t> shape = {x.size(0)};
    shape.insert(shape.end(), in.shape.begin(), in.shape.end());
    args.emplace_back(x.narrow(1, offset, numel(in.shape)).reshape(shape));
    offset += numel(in.shape);
  }
  return args;
}

Model::Forward scripted_forward(torch::jit::Module module, std::vector<ScriptedInput> inputs, std::string path) {
  return [module, inputs, path](const at::Tensor& x) mutable {
    // Plain interpretation, op by op: the profiling executor's optimized
    // graphs would bring TorchScript's own autodiff formulas and fusions,
    // which neither eager PyTorch nor autocast's op lists describe.
    const torch::jit::GraphOptimizerEnabledGuard plain(false);
    const torch::jit::IValue out = module.forward(unpack(inputs, x));
    if (!out.isTensor()) throw std::runtime_error(path + ": forward returned " + out.tagKind() + ", not one tensor");
    return out.toTensor();
  };
}

Model build(const ModelFamily& family, const c10::Device& device) {
  const ScriptedModel& src = *family.scripted;
  torch::jit::Module module = load_module(src.path);
  Seen seen;
  auto view = std::make_shared<ScriptedNode>(module, seen);
  view->to(device);
  Model m;
  m.family = &family;
  m.module = view;
  m.forward = scripted_forward(module, src.inputs, src.path);
  return m;
}

// What one sample's packed input is (ScriptedModel): the token ids, the one
// float input, or every float input flattened and concatenated.
std::vector<int64_t> packed_shape(const std::vector<ScriptedInput>& inputs) {
  if (inputs.size() == 1) return inputs.front().shape;
  int64_t n = 0;
  for (const ScriptedInput& in : inputs) n += numel(in.shape);
  return {n};
}

void check_inputs(const ScriptedOptions& o, ModelSizes& sizes) {
  const std::vector<ScriptedInput>& inputs = o.model.inputs;
  if (inputs.empty()) throw std::invalid_argument("describes no input");
  for (const ScriptedInput& in : inputs) {
    if (in.kind == InputKind::kTokenIds && inputs.size() > 1)
      throw std::invalid_argument("token ids must be the only input (several inputs must all be float)");
    if (in.shape.empty() || numel(in.shape) <= 0) throw std::invalid_argument("an input has an empty shape");
  }
  const ScriptedInput& first = inputs.front();
  if (first.kind == InputKind::kTokenIds) {
    if (first.shape.size() != 1) throw std::invalid_argument("token ids are one sequence per sample: shape [seq]");
    sizes.seq = static_cast<int>(first.shape.front());
    sizes.vocab = static_cast<int>(first.vocab);
  } else if (o.target == TargetKind::kNextToken) {
    throw std::invalid_argument("next-token targets need token ids as the input");
  }
  if (o.target == TargetKind::kNextToken) sizes.classes = sizes.vocab;
}

// One trainable-parameter count; 0 is refused.
double trainable_parameters(const std::vector<at::Tensor>& params) {
  double n = 0;
  for (const at::Tensor& p : params)
    if (p.requires_grad() && p.is_floating_point()) n += static_cast<double>(p.numel());
  return n;
}

at::Tensor probe_labels(const ModelFamily& f, const ModelSizes& sizes, LossKind loss, const at::Tensor& out) {
  if (loss == LossKind::kMse) return at::randn(out.sizes());
  if (loss == LossKind::kBceWithLogits) return at::zeros(out.sizes());
  if (f.target == TargetKind::kNextToken) return at::randint(0, sizes.vocab, {out.size(0), sizes.seq});
  return at::randint(0, sizes.classes, {out.size(0)});
}

at::Tensor probe_batch(const ModelFamily& f, const ModelSizes& sizes) {
  std::vector<int64_t> shape = {2};
  for (int64_t d : f.sample_shape(sizes)) shape.push_back(d);
  return f.input == InputKind::kTokenIds ? at::randint(1, std::max(2, sizes.vocab), shape) : at::randn(shape);
}

// Each low precision once on the CPU, as a case trains in it: the model cast
// (O2, O3) or autocast around the forward and the loss, then the backward.
// What PyTorch refuses is recorded, not refused: those cases are skipped.
void probe_precisions(ModelFamily& f, const ModelSizes& sizes, LossKind loss) {
  for (Precision p : {Precision::kFp16, Precision::kBf16, Precision::kO2}) {
    const PrecisionPolicy policy(p);
    try {
      Model m = build(f, c10::Device(c10::kCPU));
      if (policy.model_dtype() != at::kFloat) cast_model(m, policy.model_dtype(), policy.keeps_batchnorm_fp32());
      const amp::AutocastGuard autocast(c10::DeviceType::CPU, policy.autocast_dtype(),
                                        policy.autocast_dtype().has_value());
      const at::Tensor out = m.forward(probe_batch(f, sizes));
      training_loss(out, probe_labels(f, sizes, loss, out), LossSettings{loss, 0}).backward();
    } catch (const std::exception& e) {
      f.cpu_unsupported[p] = pytorch_message(e);
      if (p == Precision::kO2) f.cpu_unsupported[Precision::kO3] = f.cpu_unsupported[p];  // the same float16 model
    }
  }
}

// One forward on a batch of 2 and its backward, then the double backward the
// gradient penalty takes; the first failure or wrong shape is refused, a
// failing double backward only marks the family first-order.
void probe(ModelFamily& f, const Model& m, const ModelSizes& sizes, LossKind loss) {
  const std::string& path = f.scripted->path;
  const at::Tensor x = probe_batch(f, sizes);
  at::Tensor out;
  try {
    out = m.forward(x);
  } catch (const std::exception& e) {
    throw std::invalid_argument(path + ": forward fails on a batch of 2 of the described inputs: " + first_line(e));
  }
  const std::vector<int64_t> want = f.target == TargetKind::kNextToken
                                        ? std::vector<int64_t>{2, sizes.seq, sizes.vocab}
                                        : std::vector<int64_t>{2, sizes.classes};
  if (!out.is_floating_point() || out.sizes().vec() != want)
    throw std::invalid_argument(path + ": forward returned a " + std::string(c10::toString(out.scalar_type())) +
                                " tensor of shape " + c10::str(out.sizes()) + " for a batch of 2; the loss needs floats of " +
                                c10::str(c10::IntArrayRef(want)));
  const at::Tensor l = training_loss(out, probe_labels(f, sizes, loss, out), LossSettings{loss, 0});
  std::vector<at::Tensor> params;
  for (const at::Tensor& p : m.parameters())
    if (p.requires_grad()) params.push_back(p);
  try {
    const auto grads = torch::autograd::grad({l}, params, {}, /*retain_graph=*/true, /*create_graph=*/true,
                                             /*allow_unused=*/true);
    at::Tensor norm = at::zeros({});
    for (const at::Tensor& g : grads)
      if (g.defined()) norm = norm + g.pow(2).sum();
    if (norm.requires_grad()) norm.backward();
  } catch (const std::exception& e) {
    f.first_order_only = "its double backward fails (" + first_line(e) + ")";
  }
}

}  // namespace

std::shared_ptr<const ModelFamily> load_scripted_family(const ScriptedOptions& o, ModelSizes& sizes, LossKind loss) {
  check_inputs(o, sizes);
  auto f = std::make_shared<ModelFamily>();
  f->name = o.name;
  f->scripted = o.model;
  f->input = o.model.inputs.front().kind;
  f->target = o.target;
  f->padded_tokens = o.padded_tokens;
  f->replicable = false;  // replicate() clones LibTorch Cloneables
  const std::vector<int64_t> sample = packed_shape(o.model.inputs);
  f->sample_shape = [sample](const ModelSizes&) { return sample; };
  f->forward_flops = [flops = o.forward_flops](const ModelSizes&) { return flops; };
  // One load serves the count and the probe; every case loads its own.
  const Model probed = build(*f, c10::Device(c10::kCPU));
  const double count = trainable_parameters(probed.parameters());
  if (count == 0) throw std::invalid_argument(o.model.path + ": has no trainable floating-point parameters");
  f->parameters = [count](const ModelSizes&) { return count; };
  // Unknown inside the module: the memory estimate counts its inputs and
  // outputs only.
  const double io = static_cast<double>(numel(sample) + sizes.classes * (o.target == TargetKind::kNextToken ? sizes.seq : 1));
  f->activations = [io](const ModelSizes&) { return io; };
  f->build = [](const ModelFamily& me, const ModelSizes&, const c10::Device& d) { return build(me, d); };
  probe(*f, probed, sizes, loss);
  probe_precisions(*f, sizes, loss);
  return f;
}

}  // namespace ampbench
