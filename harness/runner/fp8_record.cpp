#include "runner/fp8_record.h"

#include <algorithm>

#include "spec/workload_traits.h"

namespace ampbench {

namespace {

// DataParallel's replicas run the casts, each with a fresh state cloned for
// the step: the model's own layers cast nothing, so there is nothing of
// theirs to record (a scale of 1 would only mislead).
bool records_fp8(const TrainingState& s) {
  return !s.fp8_states.empty() && s.spec.workload->replication() != Replication::kThreads;
}

}  // namespace

void enable_fp8_range_counts(TrainingState& s) {
  if (!records_fp8(s)) return;
  for (const auto& layer : s.fp8_states.front()) {
    for (fp8::DelayedTensorState* t : {&layer->input, &layer->weight, &layer->grad_output}) t->enable_range_counts();
    layer->mx_log.enabled =
        layer->recipe.scaling() == fp8::Scaling::kMxfp8 || layer->recipe.scaling() == fp8::Scaling::kRowwise ||
        layer->recipe.scaling() == fp8::Scaling::kBlockwise;
    if (layer->nvfp4) layer->nvfp4->log_enabled = true;
  }
}

void carry_fp8_recording(const std::vector<std::vector<std::shared_ptr<fp8::Fp8LinearState>>>& from,
                         TrainingState& to) {
  if (from.empty() || to.fp8_states.empty()) return;
  const auto& old_layers = from.front();
  const auto& new_layers = to.fp8_states.front();
  TORCH_CHECK(old_layers.size() == new_layers.size(), "carry_fp8_recording: ", old_layers.size(), " converted layers, then ",
              new_layers.size());
  for (size_t l = 0; l < old_layers.size(); ++l) {
    const fp8::DelayedTensorState* src[] = {&old_layers[l]->input, &old_layers[l]->weight, &old_layers[l]->grad_output};
    fp8::DelayedTensorState* dst[] = {&new_layers[l]->input, &new_layers[l]->weight, &new_layers[l]->grad_output};
    for (int k = 0; k < 3; ++k) {
      dst[k]->saturated = src[k]->saturated;
      dst[k]->flushed = src[k]->flushed;
      dst[k]->elements = src[k]->elements;
      dst[k]->trace = src[k]->trace;
      dst[k]->traced = src[k]->traced;
    }
    new_layers[l]->mx_log = old_layers[l]->mx_log;
  }
}

void record_fp8_scales(const TrainingState& s, CaseRecord& rec) {
  const fp8::Scaling scaling = !records_fp8(s) ? fp8::Scaling::kRowwise : s.spec.fp8->recipe.scaling();
  if (scaling == fp8::Scaling::kRowwise || scaling == fp8::Scaling::kMxfp8 || scaling == fp8::Scaling::kNvfp4 ||
      scaling == fp8::Scaling::kBlockwise)
    return;
  std::vector<std::array<double, 3>> step;
  for (const auto& layer : s.fp8_states.front())
    step.push_back({layer->input.scale.item<double>(), layer->weight.scale.item<double>(),
                    layer->grad_output.scale.item<double>()});
  rec.fp8_scales.push_back(std::move(step));
}

namespace {

std::vector<fp8::CastTrace> casts_of(const fp8::DelayedTensorState& t) {
  const int64_t kept = std::min(t.traced.item<int64_t>(), fp8::DelayedTensorState::kTracedCasts - 1);
  const at::Tensor rows = t.trace.narrow(0, 0, kept).to(at::kCPU, at::kDouble).contiguous();
  const double* p = rows.data_ptr<double>();
  std::vector<fp8::CastTrace> casts;
  for (int64_t i = 0; i < kept; ++i) casts.push_back({p[2 * i], p[2 * i + 1]});
  return casts;
}

// The log's (block amax, exponent) pairs as host traces.
std::vector<fp8::MxCastTrace> mx_casts_of(const c10::List<at::Tensor>& log) {
  std::vector<fp8::MxCastTrace> casts;
  for (size_t i = 0; i + 1 < log.size(); i += 2) {
    const at::Tensor amax = log.get(i).to(at::kCPU, at::kFloat).contiguous();
    const at::Tensor exponent = log.get(i + 1).to(at::kCPU, at::kByte).contiguous();
    casts.push_back({amax.size(0),
                     {amax.data_ptr<float>(), amax.data_ptr<float>() + amax.numel()},
                     {exponent.data_ptr<uint8_t>(), exponent.data_ptr<uint8_t>() + exponent.numel()}});
  }
  return casts;
}

// The log's (row amax, scale) pairs as host traces.
std::vector<fp8::RowwiseCastTrace> rowwise_casts_of(const c10::List<at::Tensor>& log) {
  std::vector<fp8::RowwiseCastTrace> casts;
  for (size_t i = 0; i + 1 < log.size(); i += 2) {
    const at::Tensor amax = log.get(i).to(at::kCPU, at::kFloat).contiguous();
    const at::Tensor scale = log.get(i + 1).to(at::kCPU, at::kFloat).contiguous();
    casts.push_back({{amax.data_ptr<float>(), amax.data_ptr<float>() + amax.numel()},
                     {scale.data_ptr<float>(), scale.data_ptr<float>() + scale.numel()}});
  }
  return casts;
}

}  // namespace

void record_fp8_range(const TrainingState& s, CaseRecord& rec) {
  if (!records_fp8(s)) return;
  if (s.spec.fp8->recipe.scaling() == fp8::Scaling::kRowwise) {
    for (const auto& layer : s.fp8_states.front())
      rec.rowwise_casts.push_back({rowwise_casts_of(layer->mx_log.casts[0]), rowwise_casts_of(layer->mx_log.casts[1]),
                                   rowwise_casts_of(layer->mx_log.casts[2])});
    return;
  }
  const bool mx = s.spec.fp8->recipe.scaling() == fp8::Scaling::kMxfp8;
  const bool blockwise = s.spec.fp8->recipe.scaling() == fp8::Scaling::kBlockwise;
  for (const auto& layer : s.fp8_states.front()) {
    CaseRecord::Fp8RangeCounts counts;
    std::array<std::vector<fp8::CastTrace>, 3> casts;
    const fp8::DelayedTensorState* operands[] = {&layer->input, &layer->weight, &layer->grad_output};
    for (size_t k = 0; k < 3; ++k) {
      counts.saturated[k] = operands[k]->saturated.item<int64_t>();
      counts.flushed[k] = operands[k]->flushed.item<int64_t>();
      counts.elements[k] = operands[k]->elements.item<int64_t>();
      casts[k] = casts_of(*operands[k]);
    }
    rec.fp8_range.push_back(counts);
    rec.fp8_casts.push_back(std::move(casts));
    if (layer->nvfp4) rec.nvfp4_casts.push_back(layer->nvfp4->casts);
    // Blockwise logs (tile amax, scale) pairs, the rowwise trace's shape.
    if (blockwise)
      rec.blockwise_casts.push_back({rowwise_casts_of(layer->mx_log.casts[0]),
                                     rowwise_casts_of(layer->mx_log.casts[1]),
                                     rowwise_casts_of(layer->mx_log.casts[2])});
    if (mx)
      rec.mx_casts.push_back({mx_casts_of(layer->mx_log.casts[0]), mx_casts_of(layer->mx_log.casts[1]),
                              mx_casts_of(layer->mx_log.casts[2])});
  }
}

}  // namespace ampbench
