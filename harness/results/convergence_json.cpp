#include "results/convergence_json.h"

#include "results/json_numbers.h"

namespace ampbench {
namespace {

using nlohmann::json;

json side_to_json(const ConvergenceSide& s) {
  return {{"steps_to_target", finite_or_null(s.steps_to_target)},  // null: never reached
          {"final_accuracy", finite_or_null(s.final_accuracy)},
          {"missed", s.missed},
          {"steps_to_target_trimmed_mean", finite_or_null(s.steps_mean)},
          {"steps_to_target_trimmed_stddev", finite_or_null(s.steps_stddev)},
          {"final_accuracy_trimmed_mean", finite_or_null(s.accuracy_mean)},
          {"final_accuracy_trimmed_stddev", finite_or_null(s.accuracy_stddev)}};
}

json curve_to_json(const SeedCurve& c) {
  return {{"seed", c.seed},
          {"step", c.step},
          {"accuracy", finite_or_null(c.accuracy)},
          {"loss", finite_or_null(c.loss)},
          {"train_loss", finite_or_null(c.train_loss)},
          {"scale", finite_or_null(c.scale)},
          {"skipped_steps", c.skipped_steps},
          {"steps_to_target", c.steps_to_target ? json(*c.steps_to_target) : json(nullptr)},
          {"final_accuracy", finite_or_null(c.final_accuracy)}};
}

json summary_to_json(const ConvergenceSummary& s) {
  json criteria = json::array();
  for (const ConvergenceCriterion& k : s.criteria)
    criteria.push_back({{"name", k.name}, {"value", finite_or_null(k.value)}, {"limit", finite_or_null(k.limit)},
                        {"ratio", finite_or_null(k.ratio)}, {"failed", k.failed}});
  json test = nullptr;
  if (s.steps_test)
    test = {{"test", "welch_one_sided_greater"},
            {"t", finite_or_null(s.steps_test->t)},
            {"df", finite_or_null(s.steps_test->df)},
            {"p", finite_or_null(s.steps_test->p)}};
  return {{"reference", side_to_json(s.reference)}, {"candidate", side_to_json(s.candidate)},
          {"steps_test", test}, {"criteria", criteria}, {"max_ratio", finite_or_null(s.max_ratio)}};
}

}  // namespace

json convergence_to_json(const CaseRecord& record, const std::optional<Verdict>& verdict) {
  const ConvergenceSettings& settings = *record.spec.convergence;
  json seeds = json::array();
  for (const std::uint64_t s : settings.seeds) seeds.push_back(s);
  json out = {{"dataset", settings.dataset},
              {"rule",
               {{"seeds", seeds},
                {"target_accuracy", settings.target_accuracy},
                {"alpha", settings.alpha},
                {"accuracy_band", settings.accuracy_band},
                {"trim", kConvergenceTrim},
                {"max_missed", kConvergenceMaxMissed},
                {"warmup_steps", settings.warmup_steps},
                {"eval_every", settings.eval_every},
                {"max_epochs", settings.max_epochs},
                {"stop_caught_controls", settings.stop_caught_controls}}},
              // An array even when nothing ran (an error before the first
              // seed): a reader iterates it without a type check.
              {"runs", json::array()},
              {"summary", nullptr}};
  if (const std::optional<ConvergenceRecord>& r = record.convergence) {
    out["data"] = {{"sha256", r->data_sha256}, {"train_size", r->train_size}, {"validation_size", r->validation_size}};
    json runs = json::array();
    for (const SeedCurve& c : r->seeds) runs.push_back(curve_to_json(c));
    out["runs"] = runs;
    // Fewer runs than rule.seeds: a control caught before its last seed.
    out["stopped_when_caught"] = r->stopped_when_caught;
    // The fp32 reference states its own distribution; a judged case both sides.
    out["summary"] = verdict && verdict->convergence ? summary_to_json(*verdict->convergence)
                                                     : json{{"reference", side_to_json(convergence_side(*r))}};
  }
  return out;
}

}  // namespace ampbench
