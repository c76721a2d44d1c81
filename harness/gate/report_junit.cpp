#include <string>

#include "gate/atomic_file.h"
#include "gate/format.h"
#include "gate/report.h"
#include "results/case_status.h"

namespace ampbench::gate {

using nlohmann::json;

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto ch = static_cast<unsigned char>(text[i]);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (ch < 0x20) {
          out += '?';  // not representable in XML 1.0, not even as a reference
        } else if (ch == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xBE) {
          out += '?';  // U+FFFE / U+FFFF
          i += 2;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out;
}

namespace {

// Element text keeps real line breaks (only attributes need them escaped).
std::string xml_text(std::string_view text) {
  std::string escaped = xml_escape(text);
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped.compare(i, 5, "&#10;") == 0) {
      out += '\n';
      i += 4;
    } else {
      out += escaped[i];
    }
  }
  return out;
}

std::string attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

std::string property(const std::string& name, const std::string& value) {
  return "    <property" + attr("name", name) + attr("value", value) + "/>\n";
}

std::string failure_body(const CheckResult& c) {
  std::string body = c.detail + "\n";
  body += "baseline: " + c.baseline + "\ncurrent: " + c.current + "\n";
  if (c.change) body += "change: " + fmt_percent(c.change) + "\n";
  if (c.p_value) body += "p-value: " + fmt_p(c.p_value) + "\n";
  if (c.baseline_median) body += "min effect: " + fmt_percent(c.min_effect).substr(1) + "\n";
  return body;
}

}  // namespace

std::string junit_report(const GateReport& r) {
  std::size_t failures = 0;
  std::size_t skipped = 0;
  for (const auto& c : r.checks) {
    if (c.verdict == GateVerdict::Regression) ++failures;
    if (c.verdict == GateVerdict::Skipped || c.verdict == GateVerdict::Warning) ++skipped;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuite" + attr("name", "ampbench gate") + attr("tests", std::to_string(r.checks.size())) +
         attr("failures", std::to_string(failures)) + attr("errors", "0") + attr("skipped", std::to_string(skipped)) +
         attr("time", "0") + ">\n";
  out += "  <properties>\n";
  out += property("baseline", r.baseline_path);
  out += property("current", r.current_path);
  out += property("input", to_string(r.kind));
  if (!r.suite.empty()) out += property("suite", r.suite);
  out += property("alpha", fmt_number(r.options.alpha));
  out += property("min_effect", fmt_number(r.options.min_effect));
  out += property("throughput_test", method_text(r));
  out += property("baseline_runs", std::to_string(r.baseline_runs));
  out += property("current_runs", std::to_string(r.current_runs));
  out += "  </properties>\n";
  for (const auto& c : r.checks) {
    out += "  <testcase" + attr("classname", c.id) + attr("name", c.check) + attr("time", "0");
    switch (c.verdict) {
      case GateVerdict::Regression:
        out += ">\n    <failure" + attr("message", c.label + ": " + c.detail) + attr("type", "regression") + ">" +
               xml_text(failure_body(c)) + "</failure>\n  </testcase>\n";
        break;
      case GateVerdict::Warning:
        out += ">\n    <skipped" + attr("message", "warning: " + c.label + ": " + c.detail) + "/>\n  </testcase>\n";
        break;
      case GateVerdict::Skipped:
        out += ">\n    <skipped" + attr("message", c.label + ": " + c.detail) + "/>\n  </testcase>\n";
        break;
      case GateVerdict::Improvement:
        out += ">\n    <system-out>" + xml_text(c.label + ": " + c.detail) + "</system-out>\n  </testcase>\n";
        break;
      case GateVerdict::Pass:
        out += "/>\n";
        break;
    }
  }
  std::string notes;
  for (const auto& n : r.notices) notes += n + "\n";
  notes += summary_line(r) + "\n";
  out += "  <system-out>" + xml_text(notes) + "</system-out>\n";
  out += "</testsuite>\n";
  return out;
}

std::string junit_error(const std::string& message) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite" + attr("name", "ampbench gate") + attr("tests", "1") +
         attr("failures", "0") + attr("errors", "1") + attr("skipped", "0") + attr("time", "0") + ">\n  <testcase" +
         attr("classname", "ampbench gate") + attr("name", "input") + attr("time", "0") + ">\n    <error" +
         attr("message", message) + attr("type", "unusable input") + "/>\n  </testcase>\n</testsuite>\n";
}

namespace {

struct JunitCounts {
  std::size_t failures = 0, errors = 0, skipped = 0;
};

// One case's <testcase>: skipped, error, a failure with what the check
// measured, or a pass.
std::string case_xml(const ResultsCase& c, JunitCounts& counts) {
  std::string out = "  <testcase" + attr("classname", c.id) + attr("name", "conformance") + attr("time", "0");
  if (c.status == CaseStatus::kSkipped) {
    ++counts.skipped;
    return out + ">\n    <skipped" + attr("message", c.reason.empty() ? "skipped" : c.reason) + "/>\n  </testcase>\n";
  }
  if (c.status == CaseStatus::kError) {
    ++counts.errors;
    return out + ">\n    <error" + attr("message", c.reason.empty() ? "error" : c.reason) + attr("type", "error") +
           "/>\n  </testcase>\n";
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
  return out + ">\n    <failure" + attr("message", message) + attr("type", "nonconformance") + ">" +
         xml_text(detail) + "</failure>\n  </testcase>\n";
}

}  // namespace

std::string run_junit(const ResultsFile& results) {
  JunitCounts counts;
  std::string body;
  for (const ResultsCase& c : results.cases) body += case_xml(c, counts);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuite" + attr("name", "ampbench run: " + results.suite) +
         attr("tests", std::to_string(results.cases.size())) + attr("failures", std::to_string(counts.failures)) +
         attr("errors", std::to_string(counts.errors)) + attr("skipped", std::to_string(counts.skipped)) +
         attr("time", "0") + ">\n";
  out += "  <properties>\n";
  out += property("suite", results.suite);
  for (const char* key : {"device", "gpu_name", "cpu_model", "libtorch_version", "cuda_runtime", "git_commit"}) {
    if (const auto it = results.env.find(key); it != results.env.end()) out += property(key, it->second);
  }
  out += "  </properties>\n";
  out += body;
  out += "</testsuite>\n";
  return out;
}

void write_run_junit(const ResultsFile& results, const std::string& path) {
  write_file_atomic(path, run_junit(results));
}

}  // namespace ampbench::gate
