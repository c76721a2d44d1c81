#include "runner/case_dump.h"
#include "spec/fp8_settings_json.h"

#include <ATen/core/Dict.h>
#include <ATen/core/ivalue.h>
#include <torch/serialize.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "spec/case_identity.h"

namespace ampbench {

std::string dump_folder_name(const std::string& id) {
  std::string out = id;
  for (char& c : out)
    if (c == '/' || c == '#' || c == ':') c = '_';
  return out;
}

namespace {


void write_bytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path.string() + ": cannot write dump file");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

// A dict of name -> tensor, which torch.load returns as a Python dict.
void save_named(const std::filesystem::path& path, const NamedTensors& tensors) {
  c10::Dict<std::string, at::Tensor> dict;
  for (const auto& [name, t] : tensors) dict.insert(name, t);
  write_bytes(path, torch::pickle_save(dict));
}

void save_list(const std::filesystem::path& path, const std::vector<at::Tensor>& tensors) {
  c10::List<at::Tensor> list;
  for (const at::Tensor& t : tensors) list.push_back(t);
  write_bytes(path, torch::pickle_save(list));
}

// JSON has no inf or NaN (nlohmann writes them as null, which reads back as
// NaN and loses the sign of an overflow): non-finite values are written as
// the strings "inf", "-inf" and "nan", which the replay decodes exactly.
nlohmann::json exact_series(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : values) {
    if (std::isfinite(v)) out.push_back(v);
    else out.push_back(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  }
  return out;
}

// A model given by file: what the oracle loads with torch.jit.load, and how
// it splits a packed batch back into the forward's arguments.
nlohmann::json scripted_json(const ScriptedModel& m) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const ScriptedInput& in : m.inputs)
    inputs.push_back({{"kind", in.kind == InputKind::kTokenIds ? "tokens" : "float"}, {"shape", in.shape}, {"vocab", in.vocab}});
  nlohmann::json j = {{"path", m.path}, {"inputs", inputs}};
  if (!m.python_factory.empty())
    j["python"] = {{"factory", m.python_factory}, {"kwargs", nlohmann::json::parse(m.python_kwargs_json)}};
  return j;
}

nlohmann::json spec_json(const CaseSpec& s) {
  nlohmann::json j = case_identity_json(s);
  j.update({{"device", to_string(s.device)},
          {"seed", s.seed},
          {"scaler_enabled", s.scaler_enabled},
          {"steps", s.steps},
          {"lr", s.lr},
          {"cosine_schedule", s.cosine_schedule},
          {"iters_to_accumulate", s.iters_to_accumulate},
          {"max_norm", s.max_norm},
          {"clip_value", s.clip_value},
          {"loss_multiplier", s.loss_multiplier},
          {"inject_inf_step", s.inject_inf_step},
          {"inject_inf_optimizer", s.inject_inf_optimizer},
          {"resume_at", s.resume_at},
          {"skip_steps", s.skip_steps},
          {"inject_inf_param", s.inject_inf_param},
          {"loss", {{"kind", to_string(s.loss.kind)}, {"label_smoothing", s.loss.label_smoothing}}},
          {"multi_coefficients", s.multi_coefficients},
          {"optimizer_settings",
           {{"momentum", s.optimizer_settings.momentum},
            {"dampening", s.optimizer_settings.dampening},
            {"nesterov", s.optimizer_settings.nesterov},
            {"weight_decay", s.optimizer_settings.weight_decay},
            {"betas", {s.optimizer_settings.beta1, s.optimizer_settings.beta2}},
            {"eps", s.optimizer_settings.eps},
            {"amsgrad", s.optimizer_settings.amsgrad}}},
          {"scaler",
           {{"init_scale", s.scaler.init_scale},
            {"growth_factor", s.scaler.growth_factor},
            {"backoff_factor", s.scaler.backoff_factor},
            {"growth_interval", s.scaler.growth_interval}}},
          {"sizes",
           {{"batch", s.sizes.batch}, {"in_features", s.sizes.in_features}, {"hidden", s.sizes.hidden},
            {"classes", s.sizes.classes}, {"channels", s.sizes.channels}, {"in_channels", s.sizes.in_channels},
            {"image", s.sizes.image},
            {"seq", s.sizes.seq}, {"d_model", s.sizes.d_model}, {"heads", s.sizes.heads}, {"ffn", s.sizes.ffn},
            {"layers", s.sizes.layers}, {"vocab", s.sizes.vocab}, {"depth", s.sizes.depth}, {"patch", s.sizes.patch},
            {"channels_last", s.sizes.channels_last}}}});
  if (s.model->scripted) j["torchscript"] = scripted_json(*s.model->scripted);
  if (s.fp8) j["fp8"] = fp8_settings_json(*s.fp8);
  return j;
}

}  // namespace

void write_case_dump(const std::string& dir, const CaseDump& dump) {
  namespace fs = std::filesystem;
  const CaseRecord& rec = dump.record;
  const fs::path root = fs::path(dir) / dump_folder_name(rec.spec.id);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw std::runtime_error(root.string() + ": cannot create dump directory: " + ec.message());

  for (size_t m = 0; m < dump.initial_state.size(); ++m) {
    save_named(root / ("initial_model" + std::to_string(m) + ".pt"), dump.initial_state[m]);
    save_named(root / ("final_model" + std::to_string(m) + ".pt"), dump.final_state[m]);
  }
  std::vector<at::Tensor> inputs, labels;
  for (const Batch& b : dump.batches) {
    inputs.push_back(b.inputs.detach().cpu());
    labels.push_back(b.labels.detach().cpu());
  }
  save_list(root / "inputs.pt", inputs);
  save_list(root / "labels.pt", labels);
  save_list(root / "optimizer_state.pt", dump.optimizer_state);

  nlohmann::json meta = {{"spec", spec_json(rec.spec)},
                         {"models", dump.initial_state.size()},
                         {"micro_batches", dump.batches.size()},
                         {"trajectory",
                          {{"loss", exact_series(rec.loss)}, {"scale", exact_series(rec.scale)}, {"skipped", rec.skipped}}}};
  io::write_file_atomically((root / "case.json").string(), meta.dump(1));
}

}  // namespace ampbench
