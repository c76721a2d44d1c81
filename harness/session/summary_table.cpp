#include "session/summary_table.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/precision.h"

namespace ampbench {
namespace {

// The original three columns always (a run's table keeps its shape), the
// later ones (tf32, o2, o3, the FP8 recipes) only when some case ran them;
// fp16 is O1, so O2 and O3 sit beside it.
std::vector<std::string> columns(const ResultsFile& results) {
  std::vector<std::string> out;
  for (const Precision precision :
       {Precision::kFp32, Precision::kFp16, Precision::kO2, Precision::kO3, Precision::kBf16, Precision::kTf32,
        Precision::kFp8Tensorwise, Precision::kFp8Rowwise, Precision::kFp8Delayed, Precision::kMxfp8,
        Precision::kNvfp4, Precision::kFp8Blockwise}) {
    const std::string p = PrecisionPolicy(precision).name();
    const bool always =
        precision == Precision::kFp32 || precision == Precision::kFp16 || precision == Precision::kBf16;
    const bool ran = std::any_of(results.cases.begin(), results.cases.end(),
                                 [&](const ResultsCase& c) { return c.precision == p; });
    if (always || ran) out.push_back(p);
  }
  return out;
}

// The case id without its precision segment: the row a case belongs to.
std::string row_key(const ResultsCase& c) {
  std::string id = c.id;
  const std::string p = "/" + c.precision;
  const size_t at = id.find(p);
  if (at != std::string::npos) {
    size_t end = id.find('/', at + 1);
    id.erase(at, (end == std::string::npos ? id.size() : end) - at);
  }
  return id;
}

std::string verdict(const ResultsCase& c) {
  const std::string status = to_string(c.status);
  const bool judged = c.status == CaseStatus::kPass || c.status == CaseStatus::kFail;
  if (c.expect == Expect::kFail) return !judged ? status : c.status == CaseStatus::kFail ? "caught" : "MISSED";
  // A reported-only verdict (O3): shown in lower case, never red.
  if (c.expect == Expect::kReport && judged) return "reported " + status;
  if (c.status == CaseStatus::kFail) return "FAIL";
  if (c.status == CaseStatus::kError) return "ERROR";
  return status;
}

std::string cell(const ResultsCase& c) {
  std::ostringstream out;
  out << verdict(c);
  if (c.median) {
    out << " " << std::fixed << std::setprecision(0) << *c.median << "/s";
    if (c.speedup_vs_fp32) out << " x" << std::setprecision(2) << *c.speedup_vs_fp32;
  }
  return out.str();
}

}  // namespace

void print_summary_table(std::ostream& out, const ResultsFile& results) {
  const std::vector<std::string> precisions = columns(results);
  std::vector<std::string> rows;
  std::map<std::string, std::map<std::string, std::string>> cells;
  for (const ResultsCase& c : results.cases) {
    const std::string key = row_key(c);
    if (!cells.count(key)) rows.push_back(key);
    std::string& slot = cells[key][c.precision];
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
