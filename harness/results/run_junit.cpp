#include "results/run_junit.h"

#include "io/atomic_file.h"
#include "io/xml.h"

namespace ampbench {

namespace {

using io::xml_attr;
using io::xml_property;
using io::xml_text;

struct JunitCounts {
  std::size_t failures = 0, errors = 0, skipped = 0;
};

// One case's <testcase>: skipped, error, a failure with what the check
// measured, or a pass.
std::string case_xml(const ResultsCase& c, JunitCounts& counts) {
  std::string out =
      "  <testcase" + xml_attr("classname", c.id) + xml_attr("name", "conformance") + xml_attr("time", "0");
  if (c.status == CaseStatus::kSkipped) {
    ++counts.skipped;
    return out + ">\n    <skipped" + xml_attr("message", c.reason.empty() ? "skipped" : c.reason) +
           "/>\n  </testcase>\n";
  }
  if (c.status == CaseStatus::kError) {
    ++counts.errors;
    return out + ">\n    <error" + xml_attr("message", c.reason.empty() ? "error" : c.reason) +
           xml_attr("type", "error") + "/>\n  </testcase>\n";
  }
  if (c.conforms == true) return out + "/>\n";
  ++counts.failures;
  const std::string status = to_string(c.status), expect = to_string(c.expect);
  std::string detail = "status " + status + ", expected " + expect + "\n";
  if (!c.reason.empty()) detail += "reason: " + c.reason + "\n";
  for (const std::string& f : c.failures) detail += "failure: " + f + "\n";
  for (const auto& [key, value] : c.check_details) detail += key + ": " + value + "\n";
  const std::string message =
      "does not conform: status " + status + ", expected " + expect + (c.reason.empty() ? "" : ": " + c.reason);
  return out + ">\n    <failure" + xml_attr("message", message) + xml_attr("type", "nonconformance") + ">" +
         xml_text(detail) + "</failure>\n  </testcase>\n";
}

}  // namespace

std::string run_junit(const ResultsFile& results) {
  JunitCounts counts;
  std::string body;
  for (const ResultsCase& c : results.cases) body += case_xml(c, counts);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuite" + xml_attr("name", "ampbench run: " + results.suite) +
         xml_attr("tests", std::to_string(results.cases.size())) +
         xml_attr("failures", std::to_string(counts.failures)) + xml_attr("errors", std::to_string(counts.errors)) +
         xml_attr("skipped", std::to_string(counts.skipped)) + xml_attr("time", "0") + ">\n";
  out += "  <properties>\n";
  out += xml_property("suite", results.suite);
  for (const char* key : {"device", "gpu_name", "cpu_model", "cpu_id", "cpu_capability", "libtorch_version", "cuda_runtime",
                          "git_commit"}) {
    if (const auto it = results.env.find(key); it != results.env.end()) out += xml_property(key, it->second);
  }
  out += "  </properties>\n";
  out += body;
  out += "</testsuite>\n";
  return out;
}

void write_run_junit(const ResultsFile& results, const std::string& path) {
  io::write_file_atomically(path, run_junit(results));
}

}  // namespace ampbench
