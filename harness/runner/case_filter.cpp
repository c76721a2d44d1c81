#include "runner/case_filter.h"

#include <re2/re2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "spec/workload_traits.h"

namespace ampbench {

namespace {

// RE2 compiles to an automaton whose size it limits by this budget; a
// pattern over it is refused rather than matched slowly.
constexpr int64_t kRegexMemoryBytes = 64 << 20;

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

constexpr const char* kFields[] = {"workload", "variant", "model", "precision", "optimizer", "optimizer_impl", "tag"};

void require_known_field(const std::string& key, const std::string& filter) {
  std::string known;
  for (const char* field : kFields) {
    if (key == field) return;
    known += (known.empty() ? "" : ", ") + std::string(field);
  }
  throw std::invalid_argument("--filter '" + shown_filter(filter) + "': unknown field '" + key + "' (known: " + known +
                              ")");
}

// `key` is one of kFields.
std::string field_of(const CaseSpec& c, const std::string& key) {
  if (key == "workload") return c.workload->name();
  if (key == "variant") return to_string(c.variant);
  if (key == "model") return c.model->name;
  if (key == "precision") return c.precision.name();
  if (key == "optimizer") return optim::to_string(c.optimizer);
  if (key == "optimizer_impl") return optim::to_string(c.optimizer_impl);
  return c.tag;
}

bool value_matches(const std::string& key, const std::string& actual, const std::string& wanted) {
  if (actual == wanted) return true;
  return key == "workload" && actual.rfind(wanted + "_", 0) == 0;  // clip -> clip_norm, clip_value
}

CaseMatcher field_matcher(const std::string& filter) {
  std::map<std::string, std::vector<std::string>> fields;  // key -> accepted values
  for (const std::string& term : split(filter, ',')) {
    const std::size_t eq = term.find('=');
    for (const std::string& value : split(term.substr(eq + 1), '|')) fields[term.substr(0, eq)].push_back(value);
  }
  for (const auto& [key, values] : fields) require_known_field(key, filter);  // up front, before any case
  return [fields](const CaseSpec& c) {
    for (const auto& field : fields) {
      const std::string& key = field.first;  // not a structured binding: C++17 lambdas cannot capture those
      const std::string actual = field_of(c, key);
      if (std::none_of(field.second.begin(), field.second.end(),
                       [&](const std::string& v) { return value_matches(key, actual, v); }))
        return false;
    }
    return true;
  };
}

CaseMatcher regex_matcher(const std::string& filter) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kRegexMemoryBytes);
  auto re = std::make_shared<const RE2>(filter, options);
  if (!re->ok())
    throw std::invalid_argument("--filter '" + shown_filter(filter) + "' is not a valid regular expression: " + re->error());
  return [re](const CaseSpec& c) { return RE2::PartialMatch(c.id, *re); };
}

}  // namespace

bool is_field_filter(const std::string& filter) {
  for (const std::string& term : split(filter, ',')) {
    const std::size_t eq = term.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == term.size()) return false;
    if (!std::all_of(term.begin(), term.begin() + static_cast<std::ptrdiff_t>(eq),
                     [](char ch) { return (ch >= 'a' && ch <= 'z') || ch == '_'; }))
      return false;
    if (term.find('=', eq + 1) != std::string::npos) return false;
  }
  return true;
}

CaseMatcher parse_case_filter(const std::string& filter) {
  if (filter.size() > kMaxFilterLength)
    throw std::invalid_argument("--filter is " + std::to_string(filter.size()) + " characters long (at most " +
                                std::to_string(kMaxFilterLength) + ")");
  return is_field_filter(filter) ? field_matcher(filter) : regex_matcher(filter);
}

std::string shown_filter(const std::string& filter) {
  constexpr std::size_t kShown = 80;
  if (filter.size() <= kShown) return filter;
  return filter.substr(0, kShown) + "... (" + std::to_string(filter.size()) + " characters)";
}

std::string quote_regex(const std::string& text) { return RE2::QuoteMeta(text); }

}  // namespace ampbench
