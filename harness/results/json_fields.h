// Reading fields of an input JSON document with errors that name the file
// and the place ("cases[3] (id \"x\"): ..."): the results reader's and the
// gate's Google Benchmark reader's. Free of LibTorch.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include "core/json.h"

namespace ampbench {

// An input file that cannot be used: names the file and the problem.
class InputFileError : public std::runtime_error {
 public:
  InputFileError(std::string file, std::string problem)
      : std::runtime_error(file + ": " + problem), file_(std::move(file)), problem_(std::move(problem)) {}
  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_;
  std::string problem_;
};

namespace json_fields {

const char* type_name(const nlohmann::json& v);
[[noreturn]] void fail(const std::string& path, const std::string& where, const std::string& problem);
const nlohmann::json& require(const nlohmann::json& obj, const char* key, const std::string& path,
                              const std::string& where);
std::string require_string(const nlohmann::json& obj, const char* key, const std::string& path,
                           const std::string& where);
// A scalar as text ("none" for null).
std::string as_text(const nlohmann::json& v);
// {"gate": {"min_effect": x}} under `parent`, when present.
std::optional<double> read_gate_object(const nlohmann::json& parent, const std::string& path, const std::string& where);
std::optional<long long> optional_int(const nlohmann::json& obj, const char* key);
// Reads and parses a JSON file (io/json_file.h's bounds), as InputFileError.
nlohmann::json read_json_file(const std::string& path);

}  // namespace json_fields
}  // namespace ampbench
