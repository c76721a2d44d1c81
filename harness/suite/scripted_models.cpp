// A "models" entry that names a TorchScript file instead of a registered
// family: read, resolved against the suite file's folder, and loaded (one
// forward on a tiny batch) while the suite is read, so that a bad file is
// refused before anything runs.
#include "suite/suite_sections.h"

#include <filesystem>

#include "models/scripted.h"

namespace ampbench::suite_detail {
namespace {

ScriptedInput read_input(Reader r) {
  ScriptedInput in;
  if (r.has("tokens") == r.has("shape"))
    r.fail("", "give either \"shape\" (float input, one sample's shape) or \"tokens\" (token ids: sequence length, "
               "with \"vocab\")");
  if (r.has("shape")) {
    const json& shape = r.raw("shape");
    if (!shape.is_array() || shape.empty()) r.fail("shape", "expected a list of dimensions, got " + shape.dump());
    for (const json& d : shape) {
      if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > kMaxDimension)
        r.fail("shape", "dimensions must be integers in [1, " + std::to_string(kMaxDimension) + "], got " + shape.dump());
      in.shape.push_back(d.get<int64_t>());
    }
  } else {
    in.kind = InputKind::kTokenIds;
    in.shape = {r.require<int>("tokens")};
    in.vocab = r.require<int>("vocab");
    require_in(r, "tokens", static_cast<int>(in.shape.front()), 1, kMaxDimension);
    require_in(r, "vocab", static_cast<int>(in.vocab), 2, kMaxDimension);
  }
  r.reject_unknown_keys();
  return in;
}

// Where the file came from: {"factory": "package.module:callable" or
// "path/to/file.py:callable", "kwargs": {...}}, as reference.export writes it.
void read_python_source(Reader r, ScriptedModel& m) {
  m.python_factory = r.require<std::string>("factory");
  const auto colon = m.python_factory.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == m.python_factory.size() ||
      m.python_factory.find_first_of("\n\r") != std::string::npos)
    r.fail("factory", "expected \"package.module:callable\" or \"path/to/file.py:callable\", got \"" +
                          m.python_factory + "\"");
  if (r.has("kwargs")) {
    if (!r.raw("kwargs").is_object()) r.fail("kwargs", "expected a JSON object of keyword arguments, got " + r.raw("kwargs").dump());
    m.python_kwargs_json = r.raw("kwargs").dump();
  }
  r.reject_unknown_keys();
}

}  // namespace

bool is_scripted_entry(const json& entry) { return entry.is_object() && entry.contains("torchscript"); }

ScriptedEntry read_scripted_model(Reader r, const std::string& name, const std::string& suite_path, LossKind loss) {
  namespace fs = std::filesystem;
  ScriptedOptions o;
  o.name = name;
  const fs::path file = r.require<std::string>("torchscript");
  o.model.path = fs::absolute(file.is_absolute() ? file : fs::path(suite_path).parent_path() / file).lexically_normal();
  if (!r.has("inputs") || !r.raw("inputs").is_array() || r.raw("inputs").empty())
    r.fail("inputs", "expected a list of inputs, e.g. [{\"shape\": [3, 32, 32]}] or [{\"tokens\": 128, \"vocab\": 30522}]");
  const json& inputs = r.raw("inputs");
  for (size_t i = 0; i < inputs.size(); ++i)
    o.model.inputs.push_back(read_input(Reader(inputs[i], r.file(), r.field("inputs[" + std::to_string(i) + "]"))));
  const auto target = r.get<std::string>("target", "class");
  if (target != "class" && target != "next_token") r.fail("target", "expected \"class\" or \"next_token\", got \"" + target + "\"");
  o.target = target == "class" ? TargetKind::kClass : TargetKind::kNextToken;
  o.padded_tokens = r.get("padded", false);
  o.forward_flops = r.get("forward_flops", 0.0);
  if (r.has("python")) read_python_source(Reader(r.raw("python"), r.file(), r.field("python")), o.model);
  if (!(o.forward_flops >= 0 && o.forward_flops < 1e18)) r.fail("forward_flops", "must be in [0, 1e18)");
  ModelSizes sizes;
  sizes.batch = r.require<int>("batch");
  require_in(r, "batch", sizes.batch, 1, kMaxDimension);
  if (o.target == TargetKind::kClass) {
    sizes.classes = r.require<int>("classes");
    require_in(r, "classes", sizes.classes, 1, kMaxDimension);
  }
  r.reject_unknown_keys();
  try {
    return {load_scripted_family(o, sizes, loss), sizes};
  } catch (const std::invalid_argument& e) {
    r.fail("torchscript", e.what());
  }
}

}  // namespace ampbench::suite_detail
