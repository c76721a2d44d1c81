#include "suite/case_list.h"

#include <algorithm>

#include "optim/impl.h"

namespace ampbench::suite_detail {

namespace {

// The fp32 run every other case is compared with: same workload, model,
// optimizer, settings and data; correct procedure; no scaler.
CaseSpec baseline_for(const CaseSpec& c, const SuiteContext& ctx) {
  CaseSpec b = c;
  b.resume_at = -1;  // the uninterrupted run (a resumed case is also held to it bitwise)
  b.precision = PrecisionPolicy(Precision::kFp32);
  b.fp8.reset();
  b.variant = Control::kNone;
  b.scaler_enabled = false;
  b.expect = Expect::kPass;
  b.tolerance = ctx.tolerances.by_precision.at("fp32");
  b.throughput = ctx.throughput;
  b.throughput.input = c.throughput.input;  // speedups compare like with like
  b.gate_min_effect = c.gate_min_effect;
  b.baseline_id.clear();
  if (c.convergence) {
    // One fp32 reference per model, optimizer and schedule: a control's own
    // scaler settings and injected overflow are its mistake, not the
    // reference's. A case trained at another lr or length than the suite's
    // has a reference of its own, which its tag names.
    const bool suite_schedule =
        c.lr == ctx.defaults.lr.at(optim::to_string(c.optimizer)) && c.steps == ctx.defaults.steps;
    if (suite_schedule) b.tag.clear();
    b.inject_inf_step = -1;
    b.scaler = ScalerSettings{};
  }
  b.id = make_case_id(b);
  return b;
}

bool needs_baseline(const CaseSpec& c) {
  return c.precision.precision() != Precision::kFp32 || c.scaler_enabled || c.is_control();
}

// The baseline measures an envelope for every reduced precision compared
// with it (an fp32 case, e.g. the exact fp32+scaler check, needs none).
void request_envelope(CaseSpec& base, const CaseSpec& c) {
  const Precision p = c.precision.precision();
  if (p == Precision::kFp32 || c.envelope.replicas == 0) return;
  auto& wanted = base.envelope_precisions;
  if (std::find(wanted.begin(), wanted.end(), p) == wanted.end()) wanted.push_back(p);
}

}  // namespace

void add_case(std::vector<CaseSpec>& cases, CaseIndex& ids, CaseSpec c, const SuiteContext& ctx,
              const std::string& where) {
  if (const std::string why = graph_refusal(c); !why.empty())
    throw SuiteError(ctx.file + ": " + where + ".cuda_graph: " + why);
  if (const auto [key, why] = case_options_refusal(c); !why.empty())
    throw SuiteError(ctx.file + ": " + where + "." + key + ": " + why);
  if (needs_baseline(c)) {
    CaseSpec base = baseline_for(c, ctx);
    c.baseline_id = base.id;
    auto [at, added] = ids.emplace(base.id, cases.size());
    if (added) cases.push_back(std::move(base));
    request_envelope(cases[at->second], c);
  }
  c.id = make_case_id(c);
  if (ids.count(c.id)) {
    // A matrix case and an explicit case may coincide only if identical.
    if (!needs_baseline(c)) return;
    throw SuiteError(ctx.file + ": " + where + ": duplicate case id '" + c.id + "' (give it a distinct \"tag\")");
  }
  ids.emplace(c.id, cases.size());
  cases.push_back(std::move(c));
}

}  // namespace ampbench::suite_detail
