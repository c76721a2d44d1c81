#include "runner/fp8_record.h"

namespace ampbench {

void enable_fp8_range_counts(TrainingState& s) {
  if (s.fp8_states.empty()) return;
  for (const auto& layer : s.fp8_states.front())
    for (fp8::DelayedTensorState* t : {&layer->input, &layer->weight, &layer->grad_output}) t->enable_range_counts();
}

void record_fp8_scales(const TrainingState& s, CaseRecord& rec) {
  if (s.fp8_states.empty() || s.spec.fp8->recipe.scaling() == fp8::Scaling::kRowwise) return;
  std::vector<std::array<double, 3>> step;
  for (const auto& layer : s.fp8_states.front())
    step.push_back({layer->input.scale.item<double>(), layer->weight.scale.item<double>(),
                    layer->grad_output.scale.item<double>()});
  rec.fp8_scales.push_back(std::move(step));
}

void record_fp8_range(const TrainingState& s, CaseRecord& rec) {
  if (s.fp8_states.empty() || s.spec.fp8->recipe.scaling() == fp8::Scaling::kRowwise) return;
  for (const auto& layer : s.fp8_states.front()) {
    CaseRecord::Fp8RangeCounts counts;
    const fp8::DelayedTensorState* operands[] = {&layer->input, &layer->weight, &layer->grad_output};
    for (size_t k = 0; k < 3; ++k) {
      counts.saturated[k] = operands[k]->saturated.item<int64_t>();
      counts.flushed[k] = operands[k]->flushed.item<int64_t>();
      counts.elements[k] = operands[k]->elements.item<int64_t>();
    }
    rec.fp8_range.push_back(counts);
  }
}

}  // namespace ampbench
