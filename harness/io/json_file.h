// The one way ampbench reads a JSON input (suite, results, Google Benchmark,
// ceilings, baselines, rank results). Every input may be hostile: a path to
// /dev/zero would be read forever, a multi-gigabyte file exhausts memory, and
// JSON nested 100,000 deep overflows the stack in nlohmann's recursive
// destructor and copy. So the file must be a regular file under a size limit,
// and nesting is refused past a depth limit while parsing, before the deep
// value exists. Errors name the file; callers wrap them in their own error
// type (SuiteError, GateInputError) and exit 2.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ampbench::io {

struct JsonLimits {
  // Real inputs: a 100-case results file is ~300 KB; 64 MiB leaves room for
  // thousands of cases with grad-health series.
  std::uintmax_t max_bytes = 64ull << 20;
  // The deepest real document nests 6 levels; 64 is far from both that and a
  // depth that could threaten the stack.
  int max_depth = 64;
};

class JsonFileError : public std::runtime_error {
 public:
  JsonFileError(std::string file, std::string problem);
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

// Reads `path` (a regular file of at most limits.max_bytes) and parses it.
// Throws JsonFileError("no such file", "not a regular file", "too large",
// "nested deeper than", "not valid JSON: ...").
nlohmann::json read_json_file(const std::string& path, const JsonLimits& limits = {});

// Parses text already in memory with the same size and depth limits; `path`
// only names the source in errors.
nlohmann::json parse_json_text(const std::string& text, const std::string& path, const JsonLimits& limits = {});

// nlohmann's messages start with "[json.exception.parse_error.101] ".
std::string strip_json_prefix(const std::string& what);

}  // namespace ampbench::io
