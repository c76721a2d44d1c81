// Each of the gate's --allow-* and mode flags through the real CLI11
// bindings, one by one: the input it lets through must be refused (or
// judged) without it, and it must let through that input only, not the one
// a neighbouring flag is for.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gate/cli_test_util.h"
#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

class GateFlags : public ::testing::Test {
 protected:
  TempDir dir;

  json run(std::vector<json> cases) { return make_results(cases); }
  std::string write(const std::string& name, const json& doc) { return write_json(dir.file(name), doc); }
  std::string incomplete(const std::string& name) {
    json doc = run({make_case("a", noisy(1000, 0.01, 10, 5))});
    doc["complete"] = false;
    return write(name, doc);
  }

  std::string base = write("base.json", run({make_case("a", noisy(1000, 0.01, 10, 1)),
                                               make_case("b", noisy(500, 0.01, 10, 2))}));
  std::string same = write("same.json", run({make_case("a", noisy(1000, 0.01, 10, 3)),
                                               make_case("b", noisy(500, 0.01, 10, 4))}));
  std::string slow = write("slow.json", run({make_case("a", noisy(800, 0.01, 10, 3)),
                                               make_case("b", noisy(500, 0.01, 10, 4))}));

  Outcome gate(const std::string& b, const std::string& c, std::vector<std::string> flags = {}) {
    std::vector<std::string> args = {"gate", "--baseline", b, "--current", c};
    args.insert(args.end(), flags.begin(), flags.end());
    return cli_outcome(args);
  }
};

TEST_F(GateFlags, ControlsWithoutFlags) {
  EXPECT_EQ(gate(base, same).code, 0);
  EXPECT_EQ(gate(base, slow).code, 1);
}

TEST_F(GateFlags, AllowIncompleteIsForTheCurrentRunOnly) {
  const std::string unfinished = incomplete("unfinished.json");
  const Outcome refused = gate(base, unfinished);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find(unfinished + ": the run did not finish"), std::string::npos) << refused.err;
  EXPECT_EQ(gate(base, unfinished, {"--allow-incomplete-baseline"}).code, 2);
  const Outcome allowed = gate(base, unfinished, {"--allow-incomplete"});
  EXPECT_EQ(allowed.code, 1) << "case b, not yet run, is missing" << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("the current results are incomplete"), std::string::npos) << allowed.out;
  EXPECT_EQ(gate(base, unfinished, {"--allow-incomplete", "--allow-missing"}).code, 0);
}

TEST_F(GateFlags, AllowIncompleteBaselineIsForTheBaselineOnly) {
  const std::string unfinished = incomplete("unfinished-base.json");
  const Outcome refused = gate(unfinished, same);
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find(unfinished + ": the baseline run did not finish"), std::string::npos) << refused.err;
  const Outcome wrong_flag = gate(unfinished, same, {"--allow-incomplete"});
  EXPECT_EQ(wrong_flag.code, 2) << "--allow-incomplete let an unfinished baseline through\n" << wrong_flag.out;
  const Outcome allowed = gate(unfinished, same, {"--allow-incomplete-baseline"});
  EXPECT_EQ(allowed.code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("the baseline results are incomplete"), std::string::npos) << allowed.out;
}

TEST_F(GateFlags, AllowSuiteMismatch) {
  const std::string other = write("other.json", make_results({make_case("a", noisy(1000, 0.01, 10, 3))}, make_env(),
                                                             "conformance"));
  const Outcome refused = gate(base, other, {"--allow-missing"});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--allow-suite-mismatch"), std::string::npos) << refused.err;
  const Outcome allowed = gate(base, other, {"--allow-missing", "--allow-suite-mismatch"});
  EXPECT_EQ(allowed.code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("suites differ"), std::string::npos) << allowed.out;
}

TEST_F(GateFlags, AllowMissing) {
  const std::string fewer = write("fewer.json", run({make_case("a", noisy(1000, 0.01, 10, 3))}));
  EXPECT_EQ(gate(base, fewer).code, 1);
  EXPECT_EQ(gate(base, fewer, {"--allow-new-skips"}).code, 1);
  const Outcome allowed = gate(base, fewer, {"--allow-missing"});
  EXPECT_EQ(allowed.code, 0) << allowed.out;
  EXPECT_NE(allowed.out.find("missing (allowed)"), std::string::npos) << allowed.out;
}

TEST_F(GateFlags, AllowNewSkips) {
  const std::string skipped = write("skipped.json", run({make_case("a", noisy(1000, 0.01, 10, 3)),
                                                          make_case("b", {}, "skipped")}));
  EXPECT_EQ(gate(base, skipped).code, 1);
  EXPECT_EQ(gate(base, skipped, {"--allow-missing"}).code, 1);
  const Outcome allowed = gate(base, skipped, {"--allow-new-skips"});
  EXPECT_EQ(allowed.code, 0) << allowed.out;
  EXPECT_NE(allowed.out.find("newly skipped (allowed)"), std::string::npos) << allowed.out;
}

TEST_F(GateFlags, AllowEnvMismatchComparesThroughputAcrossEnvironments) {
  json doc = json::parse(read_text(slow));
  doc["env"]["cpu_model"] = "Other CPU @ 3.0GHz";
  const std::string elsewhere = write("elsewhere.json", doc);
  const Outcome conformance = gate(base, elsewhere);
  EXPECT_EQ(conformance.code, 0) << "throughput of another machine is not compared\n" << conformance.out;
  EXPECT_NE(conformance.out.find("throughput not compared"), std::string::npos) << conformance.out;
  EXPECT_EQ(gate(base, elsewhere, {"--allow-missing"}).code, 0);
  EXPECT_EQ(gate(base, elsewhere, {"--allow-env-mismatch"}).code, 1);
}

TEST_F(GateFlags, ConformanceOnlyIgnoresThroughputButNotConformance) {
  EXPECT_EQ(gate(base, slow, {"--conformance-only"}).code, 0);
  const std::string failing = write("failing.json", run({make_case("a", noisy(1000, 0.01, 10, 3), "fail", false),
                                                          make_case("b", noisy(500, 0.01, 10, 4))}));
  EXPECT_EQ(gate(base, failing, {"--conformance-only"}).code, 1);
}

TEST_F(GateFlags, PairedNeedsOneCurrentRunPerBaselineRun) {
  const Outcome unequal = cli_outcome({"gate", "--baseline", base, base, "--current", same, "--paired"});
  EXPECT_EQ(unequal.code, 2) << unequal.out;
  EXPECT_EQ(cli_outcome({"gate", "--baseline", base, base, "--current", same}).code, 0);
  const Outcome paired = cli_outcome({"gate", "--baseline", base, base, "--current", same, same, "--paired"});
  EXPECT_NE(paired.code, 2) << paired.err;
  EXPECT_NE(paired.out.find("paired runs"), std::string::npos) << paired.out;
}

TEST_F(GateFlags, BaselineUpdateAllowIncomplete) {
  const std::string unfinished = incomplete("unfinished-store.json");
  const std::string store = dir.file("baselines");
  const Outcome refused = cli_outcome({"baseline", "update", "--results", unfinished, "--dir", store});
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--allow-incomplete"), std::string::npos) << refused.err;
  EXPECT_EQ(cli_outcome({"baseline", "update", "--results", unfinished, "--dir", store, "--allow-incomplete"}).code, 0);
}

// A fault injected on purpose is no measurement: the gate refuses it on
// either side (in any of several runs) unless --rehearsal says so, and no
// flag lets it become a baseline.
TEST_F(GateFlags, RehearsalIsForResultsMadeWithAFaultSwitch) {
  json doc = json::parse(read_text(slow));
  doc["env"]["injected_slowdown"] = 0.25;
  const std::string slowed = write("slowed.json", doc);
  doc = json::parse(read_text(base));
  doc["env"]["injected_bitflip_step"] = 2;
  const std::string flipped = write("flipped.json", doc);

  const Outcome refused = gate(base, slowed);
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.err.find(slowed + ": was made with --inject-slowdown 0.25, a test-only fault switch"),
            std::string::npos) << refused.err;
  EXPECT_EQ(gate(flipped, same).code, 2) << "an injected baseline was gated";
  EXPECT_EQ(cli_outcome({"gate", "--baseline", base, base, "--current", same, slowed}).code, 2)
      << "the second run of a side was not screened";
  EXPECT_EQ(gate(base, slowed, {"--allow-env-mismatch", "--allow-missing"}).code, 2);

  const Outcome rehearsed = gate(base, slowed, {"--rehearsal"});
  EXPECT_EQ(rehearsed.code, 1) << rehearsed.out << rehearsed.err;
  EXPECT_NE(rehearsed.out.find("rehearsal: " + slowed), std::string::npos) << rehearsed.out;
  EXPECT_EQ(gate(base, same, {"--rehearsal"}).code, 0);

  const std::string store = dir.file("baselines");
  for (const std::string& f : {slowed, flipped}) {
    const Outcome stored = cli_outcome({"baseline", "update", "--results", f, "--dir", store});
    EXPECT_EQ(stored.code, 2) << f;
    EXPECT_NE(stored.err.find("a rehearsal never becomes a baseline"), std::string::npos) << stored.err;
  }
  EXPECT_EQ(cli_outcome({"baseline", "update", "--results", base, "--dir", store}).code, 0);
}

}  // namespace
}  // namespace ampbench::gate
