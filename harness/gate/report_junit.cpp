#include <string>

#include "gate/atomic_file.h"
#include "gate/format.h"
#include "gate/report.h"
#include "io/xml.h"

namespace ampbench::gate {

using nlohmann::json;

namespace {

using io::xml_attr;
using io::xml_property;
using io::xml_text;

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
  out += "<testsuite" + xml_attr("name", "ampbench gate") + xml_attr("tests", std::to_string(r.checks.size())) +
         xml_attr("failures", std::to_string(failures)) + xml_attr("errors", "0") + xml_attr("skipped", std::to_string(skipped)) +
         xml_attr("time", "0") + ">\n";
  out += "  <properties>\n";
  out += xml_property("baseline", r.baseline_path);
  out += xml_property("current", r.current_path);
  out += xml_property("input", to_string(r.kind));
  if (!r.suite.empty()) out += xml_property("suite", r.suite);
  out += xml_property("alpha", fmt_number(r.options.alpha));
  out += xml_property("min_effect", fmt_number(r.options.min_effect));
  out += xml_property("throughput_test", method_text(r));
  out += xml_property("baseline_runs", std::to_string(r.baseline_runs));
  out += xml_property("current_runs", std::to_string(r.current_runs));
  out += "  </properties>\n";
  for (const auto& c : r.checks) {
    out += "  <testcase" + xml_attr("classname", c.id) + xml_attr("name", c.check) + xml_attr("time", "0");
    switch (c.verdict) {
      case GateVerdict::Regression:
        out += ">\n    <failure" + xml_attr("message", c.label + ": " + c.detail) + xml_attr("type", "regression") + ">" +
               xml_text(failure_body(c)) + "</failure>\n  </testcase>\n";
        break;
      case GateVerdict::Warning:
        out += ">\n    <skipped" + xml_attr("message", "warning: " + c.label + ": " + c.detail) + "/>\n  </testcase>\n";
        break;
      case GateVerdict::Skipped:
        out += ">\n    <skipped" + xml_attr("message", c.label + ": " + c.detail) + "/>\n  </testcase>\n";
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
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite" + xml_attr("name", "ampbench gate") + xml_attr("tests", "1") +
         xml_attr("failures", "0") + xml_attr("errors", "1") + xml_attr("skipped", "0") + xml_attr("time", "0") + ">\n  <testcase" +
         xml_attr("classname", "ampbench gate") + xml_attr("name", "input") + xml_attr("time", "0") + ">\n    <error" +
         xml_attr("message", message) + xml_attr("type", "unusable input") + "/>\n  </testcase>\n</testsuite>\n";
}


}  // namespace ampbench::gate
