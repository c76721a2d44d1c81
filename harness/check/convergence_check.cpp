#include "check/convergence_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/sample_stats.h"

namespace ampbench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << v;
  return out.str();
}

std::string general(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

ConvergenceCriterion criterion(std::string name, double value, double limit, double ratio) {
  return {std::move(name), value, limit, ratio, ratio > 1};
}

// Olympic, unless there are too few runs to drop two: a control stopped when
// caught may hold two; its mean is then of them all.
std::vector<double> trimmed(const std::vector<double>& values) {
  std::vector<double> kept = olympic_trim(values, kConvergenceTrim);
  return kept.empty() ? values : kept;
}

}  // namespace

ConvergenceSide convergence_side(const ConvergenceRecord& record) {
  ConvergenceSide side;
  for (const SeedCurve& s : record.seeds) {
    side.steps_to_target.push_back(s.steps_to_target ? static_cast<double>(*s.steps_to_target) : kInf);
    side.final_accuracy.push_back(s.final_accuracy);
    side.missed += s.steps_to_target ? 0 : 1;
  }
  const std::vector<double> steps = trimmed(side.steps_to_target);
  const std::vector<double> accuracy = trimmed(side.final_accuracy);
  const bool finite = std::all_of(steps.begin(), steps.end(), [](double v) { return std::isfinite(v); });
  side.steps_mean = finite ? mean_of(steps) : kInf;
  side.steps_stddev = finite ? stddev_of(steps) : kInf;
  side.accuracy_mean = mean_of(accuracy);
  side.accuracy_stddev = stddev_of(accuracy);
  return side;
}

std::string reference_refusal(const ConvergenceRecord& reference, const ConvergenceSettings& settings) {
  const ConvergenceSide side = convergence_side(reference);
  if (side.missed <= kConvergenceMaxMissed) return "";
  double best = 0;
  for (const double a : side.final_accuracy) best = std::max(best, a);
  return "the target accuracy " + fixed(settings.target_accuracy, 3) + " is one fp32 itself does not reach: " +
         std::to_string(side.missed) + " of its " + std::to_string(reference.seeds.size()) +
         " runs never reached it (at most " + std::to_string(kConvergenceMaxMissed) + " may miss; best final accuracy " +
         fixed(best, 4) + "): lower convergence.target_accuracy or train longer";
}

ConvergenceSummary check_convergence(const ConvergenceRecord& candidate, const ConvergenceRecord& reference,
                                     const ConvergenceSettings& settings) {
  // A control stopped when caught holds the first of fp32's seeds only.
  const bool fewer_allowed = candidate.stopped_when_caught && candidate.seeds.size() < reference.seeds.size();
  if (candidate.seeds.size() != reference.seeds.size() && !fewer_allowed)
    throw std::invalid_argument("convergence: " + std::to_string(candidate.seeds.size()) + " runs against fp32's " +
                                std::to_string(reference.seeds.size()));
  for (size_t i = 0; i < candidate.seeds.size(); ++i)
    if (candidate.seeds[i].seed != reference.seeds[i].seed)
      throw std::invalid_argument("convergence: run " + std::to_string(i) + " has seed " +
                                  std::to_string(candidate.seeds[i].seed) + ", fp32's " +
                                  std::to_string(reference.seeds[i].seed));
  ConvergenceSummary out;
  out.reference = convergence_side(reference);
  out.candidate = convergence_side(candidate);
  const ConvergenceSide& r = out.reference;
  const ConvergenceSide& c = out.candidate;

  const double missed_ratio = static_cast<double>(c.missed) / kConvergenceMaxMissed;
  out.criteria.push_back(criterion("seeds_missed", c.missed, kConvergenceMaxMissed, missed_ratio));
  if (out.criteria.back().failed)
    out.failures.push_back(std::to_string(c.missed) + " of " + std::to_string(candidate.seeds.size()) +
                           " runs never reached the target accuracy " + fixed(settings.target_accuracy, 3) +
                           " (at most " + std::to_string(kConvergenceMaxMissed) + " may miss; fp32 missed " +
                           std::to_string(r.missed) + ")" +
                           (fewer_allowed ? "; caught, so its other " +
                                                std::to_string(reference.seeds.size() - candidate.seeds.size()) +
                                                " seeds were not trained"
                                          : ""));

  // The steps test needs finite trimmed samples on both sides.
  if (std::isfinite(c.steps_mean) && std::isfinite(r.steps_mean)) {
    const WelchTest t = welch_greater(olympic_trim(c.steps_to_target, kConvergenceTrim),
                                      olympic_trim(r.steps_to_target, kConvergenceTrim));
    out.steps_test = t;
    const double ratio = t.p > 0 ? settings.alpha / t.p : kInf;
    out.criteria.push_back(criterion("steps_to_target", t.p, settings.alpha, ratio));
    if (out.criteria.back().failed)
      out.failures.push_back("slower to the target than fp32: " + fixed(c.steps_mean, 0) + " steps (trimmed mean) against " +
                             fixed(r.steps_mean, 0) + ", one-sided Welch t = " + general(t.t) + ", p = " + general(t.p) +
                             " < alpha " + general(settings.alpha));
  } else {
    out.criteria.push_back(criterion("steps_to_target", 0, settings.alpha, kInf));
    out.failures.push_back("steps to target not testable: more than " + std::to_string(kConvergenceMaxMissed) +
                           " run(s) never reached it");
  }

  const double deficit = r.accuracy_mean - c.accuracy_mean;
  out.criteria.push_back(criterion("final_accuracy", deficit, settings.accuracy_band,
                                   std::max(0.0, deficit) / settings.accuracy_band));
  if (out.criteria.back().failed)
    out.failures.push_back("final accuracy " + fixed(c.accuracy_mean, 4) + " (trimmed mean) is " + fixed(deficit, 4) +
                           " below fp32's " + fixed(r.accuracy_mean, 4) + ", beyond the band " +
                           general(settings.accuracy_band));
  for (const ConvergenceCriterion& k : out.criteria) out.max_ratio = std::max(out.max_ratio, k.ratio);
  return out;
}

}  // namespace ampbench
