// The gate and baseline commands end to end: run_gate / run_baseline_update
// and the CLI11 bindings in cmd_gate.cpp.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/command.h"
#include "gate/gate_main.h"
#include "gate/test_util.h"

namespace ampbench::cli {
void add_gate_command(CLI::App& app, Action& selected);
void add_baseline_command(CLI::App& app, Action& selected);
}  // namespace ampbench::cli

namespace ampbench::gate {
namespace {

using namespace test;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

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
    g.baseline = b;
    g.current = c;
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
  EXPECT_NE(none.err.find(dir.file("baselines") + "/smoke__cpu__Test-CPU-2.0GHz__torch-2.11.0.json: no baseline"),
            std::string::npos)
      << none.err;

  BaselineUpdateCommand u;
  u.results = base;
  u.dir = dir.file("baselines");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_baseline_update(u, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("wrote "), std::string::npos);

  const Outcome found = gate(cmd("", slow));
  EXPECT_EQ(found.code, 1) << found.err;
  EXPECT_NE(found.out.find("using baseline " + dir.file("baselines") + "/smoke__cpu__"), std::string::npos);
}

TEST_F(GateCli, BaselineUpdateErrors) {
  BaselineUpdateCommand u;
  u.results = dir.file("nope.json");
  u.dir = dir.file("baselines");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_baseline_update(u, out, err), 2);
  EXPECT_EQ(err.str(), "ampbench baseline: error: " + u.results + ": no such file\n");
}

// Parses argv through the real CLI11 bindings and runs the selected action.
int cli(std::vector<std::string> args) {
  CLI::App app{"ampbench", "ampbench"};
  app.require_subcommand(1);
  cli::Action selected;
  cli::add_gate_command(app, selected);
  cli::add_baseline_command(app, selected);
  std::vector<const char*> argv = {"ampbench"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return -1;  // usage error (main.cpp exits 2)
  }
  return selected ? selected() : -2;
}

TEST_F(GateCli, ThroughCli11) {
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", same}), 0);
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", slow}), 1);
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", slow, "--min-effect", "0.2"}), 0);
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", slow, "--alpha", "0.0000001"}), 0);
  EXPECT_EQ(cli({"gate", "--current", same, "--baseline-dir", dir.file("baselines")}), 2);
  EXPECT_EQ(cli({"baseline", "update", "--results", base, "--dir", dir.file("baselines")}), 0);
  EXPECT_EQ(cli({"gate", "--current", slow, "--baseline-dir", dir.file("baselines")}), 1);
  EXPECT_EQ(cli({"gate", "--baseline", base}), -1);                      // --current is required
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", same, "--min-effect", "-1"}), -1);
  EXPECT_EQ(cli({"gate", "--baseline", base, "--current", same, "--metric", "bogus"}), -1);
  EXPECT_EQ(cli({"baseline"}), -1);                                      // needs a subcommand
  testing::internal::GetCapturedStdout();
  testing::internal::GetCapturedStderr();
}

TEST_F(GateCli, GoogleBenchmarkThroughCli11) {
  const std::string b = write_json(dir.file("gb_base.json"), make_gbench({gbench_entries("BM", noisy(100, 0.01, 10, 1))}));
  const std::string c = write_json(dir.file("gb_cur.json"), make_gbench({gbench_entries("BM", noisy(130, 0.01, 10, 2))}));
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(cli({"gate", "--baseline", b, "--current", c}), 1);
  EXPECT_EQ(cli({"gate", "--baseline", b, "--current", b, "--metric", "cpu_time"}), 0);
  EXPECT_EQ(cli({"gate", "--current", c}), 2);  // no stored baselines for Google Benchmark JSON
  testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("pass --baseline FILE"), std::string::npos) << err;
}

}  // namespace
}  // namespace ampbench::gate
