#include "session/summary_table.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/precision.h"
#include "results/case_status.h"
#include "spec/expect.h"

namespace ampbench {
namespace {

// The original three columns always (a run's table keeps its shape), the
// later ones (tf32, o2, o3) only when some case ran them; fp16 is O1, so O2
// and O3 sit beside it.
std::vector<std::string> columns(const nlohmann::json& results) {
  std::vector<std::string> out;
  for (const Precision precision :
       {Precision::kFp32, Precision::kFp16, Precision::kO2, Precision::kO3, Precision::kBf16, Precision::kTf32}) {
    const std::string p = PrecisionPolicy(precision).name();
    const bool always =
        precision == Precision::kFp32 || precision == Precision::kFp16 || precision == Precision::kBf16;
    const bool ran = std::any_of(results["cases"].begin(), results["cases"].end(),
                                 [&](const nlohmann::json& c) { return c["precision"] == p; });
    if (always || ran) out.push_back(p);
  }
  return out;
}

// The case id without its precision segment: the row a case belongs to.
std::string row_key(const nlohmann::json& c) {
  std::string id = c["id"].get<std::string>();
  const std::string p = "/" + c["precision"].get<std::string>();
  const size_t at = id.find(p);
  if (at != std::string::npos) {
    size_t end = id.find('/', at + 1);
    id.erase(at, (end == std::string::npos ? id.size() : end) - at);
  }
  return id;
}

std::string verdict(const nlohmann::json& c) {
  const std::string status = c["status"].get<std::string>();
  const CaseStatus s = parse_case_status(status).value_or(CaseStatus::kError);
  const Expect expect = parse_expect(c["expect"].get<std::string>()).value_or(Expect::kPass);
  const bool judged = s == CaseStatus::kPass || s == CaseStatus::kFail;
  if (expect == Expect::kFail) return !judged ? status : s == CaseStatus::kFail ? "caught" : "MISSED";
  // A reported-only verdict (O3): shown in lower case, never red.
  if (expect == Expect::kReport && judged) return "reported " + status;
  if (s == CaseStatus::kFail) return "FAIL";
  if (s == CaseStatus::kError) return "ERROR";
  return status;
}

std::string cell(const nlohmann::json& c) {
  std::ostringstream out;
  out << verdict(c);
  const nlohmann::json& t = c["throughput"];
  if (t.is_object()) {
    out << " " << std::fixed << std::setprecision(0) << t["median"].get<double>() << "/s";
    if (t.contains("speedup_vs_fp32") && t["speedup_vs_fp32"].is_number())
      out << " x" << std::setprecision(2) << t["speedup_vs_fp32"].get<double>();
  }
  return out.str();
}

}  // namespace

void print_summary_table(std::ostream& out, const nlohmann::json& results) {
  const std::vector<std::string> precisions = columns(results);
  std::vector<std::string> rows;
  std::map<std::string, std::map<std::string, std::string>> cells;
  for (const nlohmann::json& c : results["cases"]) {
    const std::string key = row_key(c);
    if (!cells.count(key)) rows.push_back(key);
    std::string& slot = cells[key][c["precision"].get<std::string>()];
    slot = slot.empty() ? cell(c) : slot + "; " + cell(c);  // fp16 with/without scaler share a row
  }
  size_t width = 4;
  for (const std::string& r : rows) width = std::max(width, r.size());
  std::map<std::string, size_t> col;
  for (const std::string& p : precisions) {
    col[p] = p.size();
    for (const std::string& r : rows) col[p] = std::max(col[p], cells[r][p].size());
  }
  out << std::left << std::setw(static_cast<int>(width)) << "case";
  for (const std::string& p : precisions) out << "  " << std::setw(static_cast<int>(col[p])) << p;
  out << "\n";
  for (const std::string& r : rows) {
    out << std::setw(static_cast<int>(width)) << r;
    for (const std::string& p : precisions) {
      const std::string& text = cells[r][p];
      out << "  " << std::setw(static_cast<int>(col[p])) << (text.empty() ? "-" : text);
    }
    out << "\n";
  }
  out << std::right;
}

}  // namespace ampbench
