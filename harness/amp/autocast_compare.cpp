// Python's policy table against ours, row by row (declared in
// amp/autocast_policy.h).
#include <map>
#include <set>
#include <utility>

#include "amp/autocast_policy.h"

namespace ampbench::amp {
namespace {

using nlohmann::json;

std::string optional_text(const std::optional<std::string>& s) { return s ? *s : "null"; }
std::string flag_text(const std::optional<bool>& b) { return b ? (*b ? "true" : "false") : "null"; }

// Why Python's row and ours differ, most fundamental first; "" when they agree.
std::string difference(const OpOutcome& want, const OpOutcome& got) {
  if (want.skipped || got.skipped)
    return "skipped by " + std::string(want.skipped ? "Python" : "C++") + " only ('" +
           optional_text(want.skipped ? want.skipped : got.skipped) + "')";
  if (want.public_call_differs)  // the operator called is not the one PyTorch's test reaches
    return "Python's public call and " + optional_text(want.aten) + " differ: " + *want.public_call_differs;
  if (want.inputs_fnv1a64 != got.inputs_fnv1a64)
    return "inputs differ from Python's (fnv1a64 " + got.inputs_fnv1a64 + ", Python's " + want.inputs_fnv1a64 +
           "): the input recipes drifted";
  if (want.error && got.error) return "";  // unsupported on both sides
  if (got.error) return "raised '" + *got.error + "', Python's policy gives " + optional_text(want.output_dtype);
  if (want.error) return "output " + optional_text(got.output_dtype) + ", Python raised '" + *want.error + "'";
  if (want.output_dtype != got.output_dtype)
    return "output " + optional_text(got.output_dtype) + ", Python's policy gives " + optional_text(want.output_dtype);
  if (want.bitwise_equal_to_manual_cast != got.bitwise_equal_to_manual_cast)
    return "bitwise equal to the manual cast: " + flag_text(got.bitwise_equal_to_manual_cast) + ", Python's: " +
           flag_text(want.bitwise_equal_to_manual_cast);
  if (want.output_fnv1a64 != got.output_fnv1a64)
    return "output bits differ from Python's (fnv1a64 " + optional_text(got.output_fnv1a64) + ", Python's " +
           optional_text(want.output_fnv1a64) + ")";
  return "";
}

OpVerdict verdict(const OpOutcome* want, const OpOutcome& got, const std::string& device) {
  OpVerdict v{got.op, got.dtype, false, OpStatus::kDisagrees, std::nullopt, got, ""};
  const std::string where = "autocast-ops: " + got.op + " on " + device + " under " + got.dtype + ": ";
  if (want) v.expected = *want;
  if (got.cannot_call) {  // before anything else: there is no C++ outcome to compare
    v.status = OpStatus::kCannotCall;
    v.message = where + "cannot be called from C++: " + *got.cannot_call;
  } else if (!want) {
    v.message = where + "not in Python's table";
  } else if (want->skipped && got.skipped) {
    v.status = OpStatus::kSkipped;
    v.agrees = true;
  } else {
    const std::string why = difference(*want, got);
    v.agrees = why.empty();
    v.status = v.agrees ? OpStatus::kAgrees : OpStatus::kDisagrees;
    if (!v.agrees) v.message = where + why;
  }
  return v;
}

}  // namespace

std::vector<OpVerdict> compare_policies(const std::vector<OpOutcome>& expected, const std::vector<OpOutcome>& got,
                                        const std::string& device) {
  std::map<std::pair<std::string, std::string>, const OpOutcome*> want;
  for (const OpOutcome& r : expected) want.emplace(std::make_pair(r.op, r.dtype), &r);
  std::vector<OpVerdict> verdicts;
  std::set<std::pair<std::string, std::string>> compared;
  for (const OpOutcome& r : got) {
    const auto it = want.find({r.op, r.dtype});
    verdicts.push_back(verdict(it == want.end() ? nullptr : it->second, r, device));
    compared.insert({r.op, r.dtype});
  }
  for (const OpOutcome& r : expected) {
    if (compared.count({r.op, r.dtype})) continue;
    verdicts.push_back({r.op, r.dtype, false, OpStatus::kDisagrees, r, std::nullopt,
                        "autocast-ops: " + r.op + " on " + device + " under " + r.dtype +
                            ": in Python's table but not in the op list"});
  }
  return verdicts;
}

std::string to_string(OpStatus status) {
  switch (status) {
    case OpStatus::kAgrees: return "agrees";
    case OpStatus::kDisagrees: return "disagrees";
    case OpStatus::kCannotCall: return "cannot_call";
    case OpStatus::kSkipped: return "skipped";
  }
  return "disagrees";
}

json to_json(const OpVerdict& v) {
  return {{"op", v.op},
          {"dtype", v.dtype},
          {"agrees", v.agrees},
          {"status", to_string(v.status)},
          {"expected", v.expected ? to_json(*v.expected) : json(nullptr)},
          {"got", v.got ? to_json(*v.got) : json(nullptr)},
          {"message", v.message.empty() ? json(nullptr) : json(v.message)}};
}

}  // namespace ampbench::amp
