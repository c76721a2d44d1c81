// ResultsWriter: the results JSON (schema in SCHEMA.md), rewritten atomically
// after every case so an interrupted run keeps every finished case.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "results/case_result.h"
#include "results/schema_version.h"

namespace ampbench {

// One case's JSON object: CaseResult serialised, nothing computed here.
nlohmann::json case_to_json(const CaseResult& result);

class ResultsWriter {
 public:
  // Fails early (throws) when `path` cannot be written.
  ResultsWriter(std::string path, std::string suite_name, std::string suite_file, nlohmann::json env);

  void add(const CaseResult& result) { add_json(case_to_json(result)); }
  // An already serialised case (one a rank process wrote); appends and
  // rewrites the file.
  void add_json(nlohmann::json case_json);
  // Sets a top-level field (e.g. the suite's "gate") and rewrites the file.
  void set(const std::string& key, nlohmann::json value);
  void finish();                       // marks the run complete

  const nlohmann::json& document() const { return doc_; }
  const std::string& path() const { return path_; }

 private:
  void flush();
  std::string path_;
  nlohmann::json doc_;
};

std::string utc_now_iso8601();

}  // namespace ampbench
