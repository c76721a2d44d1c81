// The gate and baseline commands end to end: run_gate / run_baseline_update
// and the CLI11 bindings in cmd_gate.cpp.
#include <gtest/gtest.h>

#include <sstream>

#include "gate/cli_test_util.h"
#include "gate/gate_main.h"
#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

Outcome gate(const GateCommand& cmd) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = run_gate(cmd, out, err);
  return {code, out.str(), err.str()};
}

class GateCli : public ::testing::Test {
 protected:
  TempDir dir;
  std::string base = write_json(dir.file("base.json"), make_results({make_case("a", noisy(1000, 0.01, 10, 1))}));
  std::string same = write_json(dir.file("same.json"), make_results({make_case("a", noisy(1000, 0.01, 10, 3))}));
  std::string slow = write_json(dir.file("slow.json"), make_results({make_case("a", noisy(850, 0.01, 10, 2))}));

  GateCommand cmd(const std::string& b, const std::string& c) {
    GateCommand g;
    if (!b.empty()) g.baseline = {b};
    g.current = {c};
    g.baseline_dir = dir.file("baselines");
    return g;
  }
};

TEST_F(GateCli, ExitCodes) {
  const Outcome clean = gate(cmd(base, same));
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("gate: PASS"), std::string::npos);
  EXPECT_TRUE(clean.err.empty());
  const Outcome regression = gate(cmd(base, slow));
  EXPECT_EQ(regression.code, 1);
  EXPECT_NE(regression.out.find("gate: FAIL"), std::string::npos);
  const Outcome missing = gate(cmd(base, dir.file("nope.json")));
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "ampbench gate: error: " + dir.file("nope.json") + ": no such file\n");
}

TEST_F(GateCli, ConformanceOnlyShowsButNeverGatesThroughput) {
  GateCommand g = cmd(base, slow);
  g.options.conformance_only = true;
  const Outcome r = gate(g);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("not gated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-15."), std::string::npos) << r.out;  // the change is still shown
  const std::string failing =
      write_json(dir.file("failing.json"), make_results({make_case("a", noisy(1000, 0.01, 10, 3), "fail", false)}));
  g.current = {failing};
  EXPECT_EQ(gate(g).code, 1);  // conformance still gates
}

// Twenty unchanged cases and one that looks 20% slower on 5 vs 5 repetitions
// (p = 0.0079, the smallest possible): per row that is a regression; over
// 21 rows its Benjamini-Hochberg q is 0.17, so the corrected gate passes. A
// slowdown that moves every row still fails it.
TEST_F(GateCli, BenjaminiHochbergNeedsMoreThanOneLuckyRow) {
  std::vector<json> base_cases;
  std::vector<json> lone_cases;
  std::vector<json> all_slow;
  for (int i = 0; i < 21; ++i) {
    const std::string id = "case" + std::to_string(i);
    const auto u = static_cast<unsigned>(i);
    base_cases.push_back(make_case(id, noisy(1000, 0.01, 5, 100 + u)));
    lone_cases.push_back(make_case(id, noisy(i == 7 ? 800 : 1000, 0.01, 5, 200 + u)));
    all_slow.push_back(make_case(id, noisy(800, 0.01, 5, 300 + u)));
  }
  const std::string b = write_json(dir.file("b21.json"), make_results(base_cases));
  GateCommand g = cmd(b, write_json(dir.file("lone.json"), make_results(lone_cases)));
  const Outcome corrected = gate(g);
  EXPECT_EQ(corrected.code, 0) << corrected.out;
  EXPECT_NE(corrected.out.find("Benjamini-Hochberg over the judged rows"), std::string::npos);
  g.options.correction = Correction::None;
  EXPECT_EQ(gate(g).code, 1);
  g = cmd(b, write_json(dir.file("all_slow.json"), make_results(all_slow)));
  const Outcome slow_all = gate(g);
  EXPECT_EQ(slow_all.code, 1);
  EXPECT_NE(slow_all.out.find("Benjamini-Hochberg q=0.0079"), std::string::npos) << slow_all.out;
}

TEST_F(GateCli, WritesMarkdownAndJunit) {
  GateCommand g = cmd(base, slow);
  g.markdown = dir.file("out/summary.md");
  g.junit = dir.file("out/gate.xml");
  EXPECT_EQ(gate(g).code, 1);
  EXPECT_NE(read_text(g.markdown).find("| a | throughput |"), std::string::npos);
  EXPECT_NE(read_text(g.junit).find("<failure"), std::string::npos);
}

TEST_F(GateCli, UnusableInputStillLeavesReports) {
  GateCommand g = cmd(base, dir.file("nope.json"));
  g.markdown = dir.file("summary.md");
  g.junit = dir.file("gate.xml");
  EXPECT_EQ(gate(g).code, 2);
  EXPECT_NE(read_text(g.junit).find("<error message=\"" + dir.file("nope.json") + ": no such file\""), std::string::npos)
      << read_text(g.junit);
  EXPECT_NE(read_text(g.markdown).find("unusable input"), std::string::npos);
}

TEST_F(GateCli, UnwritableReportIsExit2) {
  GateCommand g = cmd(base, same);
  g.junit = write_text(dir.file("blocker"), "x") + "/gate.xml";
  const Outcome r = gate(g);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("ampbench gate: error: " + g.junit + ": ", 0), 0u) << r.err;
}

TEST_F(GateCli, StoredBaselineLookup) {
  // No baseline stored yet: exit 2 naming the file looked for.
  const Outcome none = gate(cmd("", same));
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find(dir.file("baselines") + "/smoke__cpu__Test-CPU-2.0GHz__torch-2.11.0: no baseline"),
            std::string::npos)
      << none.err;

  BaselineUpdateCommand u;
  u.results = {base};
  u.dir = dir.file("baselines");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_baseline_update(u, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("wrote "), std::string::npos);

  const Outcome found = gate(cmd("", slow));
  EXPECT_EQ(found.code, 1) << found.err;
  EXPECT_NE(found.err.find("ampbench gate: error: 1 regression(s) against the baseline"), std::string::npos)
      << found.err;  // exit 1 says why on stderr
  EXPECT_NE(found.out.find("using baseline " + dir.file("baselines") + "/smoke__cpu__"), std::string::npos);
}

// Per-process noise: every repetition of one run shares an offset. Five
// identical builds per side, each run internally tight but runs spread by
// +-6%: the repetition-level U test calls one run against another a
// regression, the per-run medians of five runs per side do not; a real 20%
// slowdown is flagged either way.
class GateRuns : public GateCli {
 protected:
  std::vector<std::string> runs(const std::string& prefix, double center, unsigned seed) {
    const std::vector<double> offsets = {-0.06, 0.03, 0.0, 0.06, -0.03};
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      const double run_center = center * (1.0 + offsets[(i + seed) % offsets.size()]);
      paths.push_back(write_json(dir.file(prefix + std::to_string(i) + ".json"),
                                 make_results({make_case("a", noisy(run_center, 0.005, 8, seed * 10 + i))})));
    }
    return paths;
  }
};

TEST_F(GateRuns, PerRunMediansAbsorbRunToRunNoise) {
  const auto a = runs("a", 1000, 1);
  const auto b = runs("b", 1000, 2);
  GateCommand single = cmd(a[2], b[3]);  // one run per side: +6% vs -6%, every repetition apart
  const Outcome one = gate(single);
  EXPECT_EQ(one.code, 1) << one.out;

  GateCommand several = cmd("", "");
  several.baseline = a;
  several.current = b;
  const Outcome five = gate(several);
  EXPECT_EQ(five.code, 0) << five.out;
  EXPECT_NE(five.out.find("per-run medians (5 baseline runs, 5 current runs)"), std::string::npos) << five.out;

  several.current = runs("slow", 800, 3);
  const Outcome slow_runs = gate(several);
  EXPECT_EQ(slow_runs.code, 1) << slow_runs.out;
  EXPECT_NE(slow_runs.out.find("REGRESSION"), std::string::npos);
  EXPECT_NE(slow_runs.out.find("n=5/5 runs"), std::string::npos) << slow_runs.out;
}

TEST_F(GateRuns, TooFewRunsPerSideAreNotJudged) {
  const auto a = runs("a", 1000, 1);
  GateCommand g = cmd("", "");
  g.baseline = {a[0], a[1]};
  g.current = runs("slow", 500, 3);
  g.current.resize(2);
  const Outcome r = gate(g);
  EXPECT_EQ(r.code, 0) << r.out;  // even a halving cannot be significant with 2 vs 2
  EXPECT_NE(r.out.find("insufficient runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("use at least 4 runs per side"), std::string::npos) << r.out;
}

TEST_F(GateRuns, OneBaselineRunPoolsRepetitionsAndSaysSo) {
  const auto a = runs("a", 1000, 1);
  GateCommand g = cmd(a[2], "");
  g.current = runs("b", 1000, 2);
  const Outcome r = gate(g);
  EXPECT_NE(r.out.find("repetitions are pooled"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("n=8/40"), std::string::npos) << r.out;
}

TEST_F(GateRuns, RunsFromAnotherEnvironmentAreUnusable) {
  auto a = runs("a", 1000, 1);
  a.push_back(write_json(dir.file("other.json"),
                         make_results({make_case("a", noisy(1000, 0.01, 8, 9))}, make_env("cpu", "none", "Other CPU"))));
  GateCommand g = cmd("", "");
  g.baseline = a;
  g.current = runs("b", 1000, 2);
  const Outcome r = gate(g);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(dir.file("other.json") + ": environment differs from " + a[0]), std::string::npos) << r.err;
}

// Interleaved runs under drift: the machine's speed moves +-20% from pair to
// pair, and within a pair both runs see the same speed. Unpaired, a 10%
// slowdown drowns in the drift; paired, it is flagged, and an A/A pairing
// is not.
TEST_F(GateRuns, PairedRunsCancelSharedDrift) {
  const std::vector<double> drift = {1.0, 0.8, 1.2, 0.9, 1.15, 0.85, 1.05, 0.95};
  const std::vector<double> jitter = {0.01, -0.01, 0.005, -0.005, 0.0, 0.01, -0.01, 0.0};
  auto series = [&](const std::string& prefix, double center, std::size_t shift) {
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < drift.size(); ++i) {
      const double c = center * drift[i] * (1.0 + jitter[(i + shift) % jitter.size()]);
      paths.push_back(write_json(dir.file(prefix + std::to_string(i) + ".json"),
                                 make_results({make_case("a", noisy(c, 0.002, 6, static_cast<unsigned>(i + 100 * shift)))})));
    }
    return paths;
  };
  GateCommand g = cmd("", "");
  g.baseline = series("base", 1000, 0);
  g.current = series("slow", 1000 / 1.1, 3);
  const Outcome unpaired = gate(g);
  EXPECT_EQ(unpaired.code, 0) << unpaired.out;  // the drift hides it
  g.options.paired = true;
  const Outcome paired = gate(g);
  EXPECT_EQ(paired.code, 1) << paired.out;
  EXPECT_NE(paired.out.find("Wilcoxon signed-rank p=0.0078"), std::string::npos) << paired.out;  // 2 / 2^8
  EXPECT_NE(paired.out.find("throughput: two-sided Wilcoxon signed-rank on paired runs"), std::string::npos);
  g.junit = dir.file("paired.xml");
  EXPECT_EQ(gate(g).code, 1);
  const std::string xml = read_text(g.junit);
  EXPECT_NE(xml.find("<property name=\"throughput_test\" value=\"two-sided Wilcoxon signed-rank on paired runs, "
                     "Benjamini-Hochberg over the judged rows\"/>"),
            std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"current_runs\" value=\"8\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("median pair ratio"), std::string::npos) << xml;  // the failure carries the numbers
  g.junit.clear();
  EXPECT_NE(paired.out.find("n=8 pairs"), std::string::npos) << paired.out;
  g.current = series("same", 1000, 3);
  const Outcome aa = gate(g);
  EXPECT_EQ(aa.code, 0) << aa.out;

  g.current.pop_back();  // pairing needs equal run counts
  const Outcome uneven = gate(g);
  EXPECT_EQ(uneven.code, 2);
  EXPECT_NE(uneven.err.find("--paired needs the same number of runs on both sides"), std::string::npos) << uneven.err;
  g.baseline.resize(5);
  g.current.resize(5);
  const Outcome few = gate(g);
  EXPECT_NE(few.out.find("use at least 6 pairs"), std::string::npos) << few.out;
}

TEST_F(GateRuns, StoredBaselineKeepsEveryRun) {
  BaselineUpdateCommand u;
  u.results = runs("a", 1000, 1);
  u.dir = dir.file("baselines");
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(run_baseline_update(u, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("(5 runs, 1 cases)"), std::string::npos) << out.str();
  GateCommand g = cmd("", "");
  g.current = runs("b", 1000, 2);
  const Outcome r = gate(g);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(5 runs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("per-run medians (5 baseline runs"), std::string::npos) << r.out;
}

TEST_F(GateCli, BaselineUpdateErrors) {
  BaselineUpdateCommand u;
  u.results = {dir.file("nope.json")};
  u.dir = dir.file("baselines");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_baseline_update(u, out, err), 2);
  EXPECT_EQ(err.str(), "ampbench baseline: error: " + u.results[0] + ": no such file\n");
}

TEST_F(GateCli, ThroughCli11) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", same}), 0);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", slow}), 1);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", slow, "--min-effect", "0.2"}), 0);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", slow, "--alpha", "0.0000001"}), 0);
  EXPECT_EQ(cli_status({"gate", "--current", same, "--baseline-dir", dir.file("baselines")}), 2);
  EXPECT_EQ(cli_status({"baseline", "update", "--results", base, "--dir", dir.file("baselines")}), 0);
  EXPECT_EQ(cli_status({"gate", "--current", slow, "--baseline-dir", dir.file("baselines")}), 1);
  EXPECT_EQ(cli_status({"gate", "--baseline", base}), -1);  // --current is required
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", same, "--min-effect", "-1"}), -1);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", same, "--metric", "bogus"}), -1);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", slow, "--correction", "none"}), 1);
  EXPECT_EQ(cli_status({"gate", "--baseline", base, "--current", same, "--correction", "holm"}), -1);
  EXPECT_EQ(cli_status({"baseline"}), -1);  // needs a subcommand
  // Several files per flag, and the flag repeated, are both runs of one side.
  EXPECT_EQ(cli_status({"gate", "--baseline", base, base, "--current", same, "--current", same}), 0);
  EXPECT_EQ(cli_status({"baseline", "update", "--results", base, same, "--dir", dir.file("runs")}), 0);
  EXPECT_EQ(cli_status({"gate", "--current", same, same, "--baseline-dir", dir.file("runs")}), 0);
  testing::internal::GetCapturedStdout();
  testing::internal::GetCapturedStderr();
}

TEST_F(GateCli, GoogleBenchmarkThroughCli11) {
  const std::string b = write_json(dir.file("gb_base.json"), make_gbench({gbench_entries("BM", noisy(100, 0.01, 10, 1))}));
  const std::string c = write_json(dir.file("gb_cur.json"), make_gbench({gbench_entries("BM", noisy(130, 0.01, 10, 2))}));
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli_status({"gate", "--baseline", b, "--current", c}), 1);
  EXPECT_EQ(cli_status({"gate", "--baseline", b, "--current", b, "--metric", "cpu_time"}), 0);
  EXPECT_EQ(cli_status({"gate", "--current", c}), 2);  // no stored baselines for Google Benchmark JSON
  testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("pass --baseline FILE"), std::string::npos) << err;
}

// `gate --history` hands the history's gate what it honours (the db, one
// current file, --min-effect, --rehearsal, the report paths) and refuses the
// two-sided gate's flags before running anything.
TEST(GateHistoryCli, PassesWhatItHonoursAndRefusesTheRest) {
  std::vector<std::string> seen;
  const cli::HistoryRunner record = [&seen](const std::vector<std::string>& argv) {
    seen = argv;
    return 1;
  };
  EXPECT_EQ(cli_status({"gate", "--history", "h.db", "--current", "c.json", "--rehearsal", "--markdown", "g.md",
                        "--junit", "g.xml"}, record), 1);
  EXPECT_EQ(seen, (std::vector<std::string>{"gate", "--db", "h.db", "--current", "c.json", "--rehearsal",
                                            "--markdown", "g.md", "--junit", "g.xml"}));
  seen.clear();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli_status({"gate", "--history", "h.db", "--current", "c.json", "--paired"}, record), 2);
  EXPECT_EQ(cli_status({"gate", "--history", "h.db", "--current", "a.json", "b.json"}, record), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(seen.empty());
  EXPECT_NE(err.find("--paired does not apply with --history"), std::string::npos) << err;
}

}  // namespace
}  // namespace ampbench::gate
