#include <string>

#include "gate/format.h"
#include "gate/report.h"

namespace ampbench::gate {
namespace {

// Table cells: no line breaks, escaped pipes, HTML-sensitive characters neutral.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '|': out += "\\|"; break;
      case '\n':
      case '\r': out += ' '; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string code(const std::string& s) {
  std::string clean;
  for (char ch : s) clean += (ch == '`' || ch == '\n') ? '\'' : ch;
  return "`" + clean + "`";
}

std::string verdict_cell(const CheckResult& c) {
  switch (c.verdict) {
    case GateVerdict::Regression: return "❌ **" + md_cell(c.label) + "**";
    case GateVerdict::Warning: return "⚠️ " + md_cell(c.label);
    case GateVerdict::Improvement: return "🚀 " + md_cell(c.label);
    case GateVerdict::Skipped: return "⏭️ " + md_cell(c.label);
    case GateVerdict::Pass: return "✅ " + md_cell(c.label);
  }
  return md_cell(c.label);
}

void table(std::string& out, const GateReport& r, bool problems_only, bool with_detail) {
  out += "| case | check | baseline | current | change | p-value | verdict |";
  out += with_detail ? " detail |\n|---|---|---|---|---:|---:|---|---|\n" : "\n|---|---|---|---|---:|---:|---|\n";
  for (const auto& c : r.checks) {
    if (problems_only && c.verdict != GateVerdict::Regression && c.verdict != GateVerdict::Warning) continue;
    out += "| " + md_cell(c.id) + " | " + md_cell(c.check) + " | " + md_cell(c.baseline) + " | " +
           md_cell(c.current) + " | " + fmt_percent(c.change) + " | " + fmt_p(c.p_value) + " | " + verdict_cell(c) +
           " |";
    if (with_detail) out += " " + md_cell(c.detail) + " |";
    out += "\n";
  }
}

}  // namespace

std::string markdown_error(const std::string& message) {
  return "### ⚠️ ampbench gate: unusable input\n\n" + md_cell(message) + "\n";
}

std::string markdown_report(const GateReport& r) {
  std::string out;
  out += r.passed() ? "### ✅ ampbench gate: pass\n\n" : "### ❌ ampbench gate: regression\n\n";
  out += md_cell(summary_line(r)) + "\n\n";
  out += "Baseline " + code(r.baseline_path) + ", current " + code(r.current_path) + " (" + to_string(r.kind) +
         (r.suite.empty() ? "" : ", suite " + code(r.suite)) + "). Throughput: " + method_text(r) + ", alpha " +
         fmt_number(r.options.alpha) + ", min effect " + fmt_percent(r.options.min_effect).substr(1) + ".\n\n";
  for (const auto& n : r.notices) out += "- " + md_cell(n) + "\n";
  if (!r.notices.empty()) out += "\n";
  if (r.count(GateVerdict::Regression) + r.count(GateVerdict::Warning) > 0) {
    out += "#### Regressions and warnings\n\n";
    table(out, r, true, true);
    out += "\n";
  }
  out += "<details><summary>All " + std::to_string(r.checks.size()) + " checks</summary>\n\n";
  table(out, r, false, false);
  out += "\n</details>\n";
  return out;
}

}  // namespace ampbench::gate
