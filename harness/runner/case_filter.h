// `--filter`: which cases of a suite a run selects. Two forms:
//  - fields: "workload=clip,precision=fp16|bf16" (keys workload, variant,
//    model, precision, optimizer, tag; all keys must match, '|' separates
//    accepted values, workload=clip matches clip_norm and clip_value);
//  - otherwise an RE2 regular expression searched in the case id.
// A filter is user input: RE2 matches in time linear in the id and does not
// recurse (std::regex overflowed the stack on a 30,000-character filter and
// took minutes on ^(.*)*(.*)*...$x), and the field form is split by hand.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "spec/case_spec.h"

namespace ampbench {

// Long enough for the exact-id filter the launcher hands to DDP ranks
// (every id of a large suite, escaped), short enough to bound RE2's memory.
inline constexpr std::size_t kMaxFilterLength = 65536;

using CaseMatcher = std::function<bool(const CaseSpec&)>;

// Throws std::invalid_argument naming the filter and the problem (too long,
// unknown field, invalid or too large regular expression).
CaseMatcher parse_case_filter(const std::string& filter);

// True for the field form: key=value[,key=value...], keys [a-z_]+, values
// without ',' or '='.
bool is_field_filter(const std::string& filter);

// The filter as error messages quote it: at most 80 characters.
std::string shown_filter(const std::string& filter);

// `text` as an RE2 pattern matching exactly that text.
std::string quote_regex(const std::string& text);

}  // namespace ampbench
