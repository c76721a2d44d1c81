// Writers for a GateReport: a human table (stdout), GitHub-flavoured Markdown
// (step summaries) and JUnit XML; plus JUnit for a single results file's
// conformance verdicts (`ampbench run --junit FILE`).
#pragma once

#include "core/json.h"  // nlohmann/json, version-checked
#include <ostream>
#include <string>
#include <string_view>

#include "gate/compare.h"
#include "io/xml.h"

namespace ampbench::gate {

// "gate: PASS: 40 checks (38 ok, 1 improved, 1 warning)" or
// "gate: FAIL: 2 regressions (...)".
std::string summary_line(const GateReport& report);

// How throughput was tested: "two-sided Mann-Whitney U on repetitions",
// "... on per-run medians" or "two-sided Wilcoxon signed-rank on paired runs".
std::string method_text(const GateReport& report);

// Header line, notices, one row per case and check (id, check, baseline,
// current, change, p-value, verdict), the details of every row that is not a
// plain pass, and the summary line.
void write_text_report(const GateReport& report, std::ostream& out);

// Markdown: a heading with the outcome, notices as a list, the regressions and
// warnings first, then every row in a collapsible section.
std::string markdown_report(const GateReport& report);

// JUnit XML: one <testsuite>, one <testcase classname="ID" name="CHECK"> per
// row; regressions carry <failure message="..." type="regression">, skipped
// and warning rows carry <skipped message="..."/>.
std::string junit_report(const GateReport& report);

// JUnit XML standing in for a report when the gate could not run (exit 2):
// one testcase (classname "ampbench gate", name "input") with an <error>.
std::string junit_error(const std::string& message);
// Markdown for the same case.
std::string markdown_error(const std::string& message);

using io::xml_escape;

}  // namespace ampbench::gate
