#include "amp/autocast_coverage.h"

#include <iomanip>
#include <map>

namespace ampbench::amp {
namespace {

void count(ListCoverage& c, const OpVerdict& v) {
  ++c.rows;
  c.agree += v.status == OpStatus::kAgrees;
  c.disagree += v.status == OpStatus::kDisagrees;
  c.cannot_call += v.status == OpStatus::kCannotCall;
  c.skipped += v.status == OpStatus::kSkipped;
  c.ran += v.status == OpStatus::kAgrees || v.status == OpStatus::kDisagrees;
}

}  // namespace

std::vector<ListCoverage> list_coverage(const TorchLists& lists, int own_ops, const std::vector<OpVerdict>& verdicts) {
  std::vector<ListCoverage> out;
  std::map<std::string, std::size_t> index;
  for (const auto& [name, entries] : lists.lists) {
    index[name] = out.size();
    out.push_back({name, entries});
  }
  const std::size_t own = out.size();
  out.push_back({kOwnList, own_ops});
  ListCoverage all{"all", own_ops};
  for (const auto& [name, entries] : lists.lists) all.entries += entries;
  for (const OpVerdict& v : verdicts) {
    const OpOutcome& row = v.got ? *v.got : *v.expected;
    const auto it = index.find(row.list);
    count(out[it == index.end() ? own : it->second], v);
    count(all, v);
  }
  out.push_back(all);
  return out;
}

nlohmann::json to_json(const std::vector<ListCoverage>& coverage) {
  nlohmann::json j = nlohmann::json::array();
  for (const ListCoverage& c : coverage)
    j.push_back({{"list", c.list},       {"entries", c.entries},   {"rows", c.rows},
                 {"ran", c.ran},         {"agree", c.agree},       {"disagree", c.disagree},
                 {"cannot_call", c.cannot_call}, {"skipped", c.skipped}});
  return j;
}

void print_coverage(std::ostream& out, const std::vector<ListCoverage>& coverage) {
  out << std::left << std::setw(34) << "list" << std::right << std::setw(8) << "entries" << std::setw(6) << "rows"
      << std::setw(6) << "ran" << std::setw(7) << "agree" << std::setw(10) << "disagree" << std::setw(13)
      << "cannot call" << std::setw(9) << "skipped" << "\n";
  for (const ListCoverage& c : coverage)
    out << std::left << std::setw(34) << c.list << std::right << std::setw(8) << c.entries << std::setw(6) << c.rows
        << std::setw(6) << c.ran << std::setw(7) << c.agree << std::setw(10) << c.disagree << std::setw(13)
        << c.cannot_call << std::setw(9) << c.skipped << "\n";
}

}  // namespace ampbench::amp
