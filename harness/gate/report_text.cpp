#include <algorithm>
#include <vector>

#include "gate/format.h"
#include "gate/report.h"

namespace ampbench::gate {

std::string summary_line(const GateReport& r) {
  const std::size_t reg = r.count(GateVerdict::Regression);
  std::string parts;
  auto add = [&parts](std::size_t n, const char* one, const char* many) {
    if (n == 0) return;
    parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + (n == 1 ? one : many);
  };
  add(reg, "regression", "regressions");
  add(r.count(GateVerdict::Warning), "warning", "warnings");
  add(r.count(GateVerdict::Improvement), "improvement", "improvements");
  add(r.count(GateVerdict::Skipped), "skipped", "skipped");
  add(r.count(GateVerdict::Pass), "ok", "ok");
  std::string line = std::string("gate: ") + (reg ? "FAIL" : "PASS") + ": " + std::to_string(r.checks.size()) +
                     " checks (" + parts + ")";
  if (reg) {
    const std::size_t conf = r.count(GateVerdict::Regression, "conformance");
    line += "; regressions: " + std::to_string(conf) + " conformance, " + std::to_string(reg - conf) + " performance";
  }
  return line;
}

std::string method_text(const GateReport& r) {
  std::string text = r.kind == InputKind::GoogleBenchmark ? "two-sided Mann-Whitney U on repetitions"
                     : r.options.paired                    ? "two-sided Wilcoxon signed-rank on paired runs"
                     : r.run_medians ? "two-sided Mann-Whitney U on per-run medians"
                                     : "two-sided Mann-Whitney U on repetitions";
  if (r.options.correction == Correction::BenjaminiHochberg) {
    text += ", Benjamini-Hochberg over the judged rows";
  }
  return text;
}

void write_text_report(const GateReport& r, std::ostream& out) {
  out << "ampbench gate: baseline " << r.baseline_path << " vs current " << r.current_path << " ("
      << to_string(r.kind) << (r.suite.empty() ? "" : ", suite " + r.suite) << ")\n";
  out << "  throughput: " << method_text(r) << ", alpha " << fmt_number(r.options.alpha) << ", min effect "
      << fmt_percent(r.options.min_effect).substr(1) << " (median change)\n";
  for (const auto& n : r.notices) out << n << "\n";

  const std::vector<std::string> head = {"id", "check", "baseline", "current", "change", "p-value", "verdict"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : r.checks) {
    rows.push_back({c.id, c.check, c.baseline, c.current, fmt_percent(c.change), fmt_p(c.p_value), c.label});
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      // change and p-value are right-aligned numbers
      const bool right = i == 4 || i == 5;
      const std::string pad(width[i] - row[i].size(), ' ');
      line += right ? pad + row[i] : row[i] + (i + 1 < row.size() ? pad : "");
      if (i + 1 < row.size()) line += "  ";
    }
    out << line << "\n";
  };
  out << "\n";
  print(head);
  for (const auto& row : rows) print(row);

  bool any = false;
  for (const auto& c : r.checks) {
    if (c.verdict != GateVerdict::Regression && c.verdict != GateVerdict::Warning && c.verdict != GateVerdict::Improvement) continue;
    if (!any) out << "\n";
    any = true;
    out << c.label << ": " << c.id << " [" << c.check << "]: " << c.detail << "\n";
  }
  out << "\n" << summary_line(r) << "\n";
}

}  // namespace ampbench::gate
