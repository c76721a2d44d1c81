// ResultsWriter: the results JSON (schema in SCHEMA.md), rewritten atomically
// after every case so an interrupted run keeps every finished case.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "check/checker.h"
#include "check/engagement.h"
#include "runner/case_record.h"

namespace ampbench {

// 2: check.envelope, check.bounds, check.max_ratio (the measured
// equivalence envelope), engagement; readers still accept 1.
inline constexpr int kResultsSchemaVersion = 2;

// One case's JSON object from its record, (for non-baselines) verdict, and
// what its mechanism did.
nlohmann::json case_to_json(const CaseRecord& record, const std::optional<Verdict>& verdict,
                            const std::optional<EngagementSummary>& engagement = std::nullopt);

class ResultsWriter {
 public:
  // Fails early (throws) when `path` cannot be written.
  ResultsWriter(std::string path, std::string suite_name, std::string suite_file, nlohmann::json env);

  void add(nlohmann::json case_json);  // appends and rewrites the file
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
