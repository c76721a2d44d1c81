#include "io/output_path.h"
#include "io/temp_dir_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ampbench::io {
namespace {

namespace fs = std::filesystem;

// Each test's folders lie in a temporary folder of its own, removed after it.
class OutputPath : public ::testing::Test {
 protected:
  fs::path fresh_dir(const std::string& name) const {
    const fs::path dir = tmp_.path() / name;
    fs::remove_all(dir);
    return dir;
  }

 private:
  test::TempDir tmp_;
};

std::string error_of(void (*check)(const std::string&, const std::string&), const std::string& path) {
  try {
    check("--junit", path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_F(OutputPath, DeviceNodesAndDirectoriesAreNotFiles) {
  EXPECT_NE(error_of(check_output_file, "/dev/null").find("--junit /dev/null: exists and is not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of(check_output_file, "/tmp").find("is a directory"), std::string::npos);
  EXPECT_EQ(error_of(check_output_file, (fresh_dir("file") / "a/b/c.xml").string()), "(accepted)");
}

TEST_F(OutputPath, NonEmptyOutIsRefusedUnlessOverwriting) {
  const fs::path dir = fresh_dir("out");
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), true));  // created
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), true));  // empty: fine
  std::ofstream(dir / "results.json") << "{}";
  EXPECT_THROW(prepare_output_dir("--out", dir.string(), true), std::invalid_argument);
  EXPECT_NO_THROW(prepare_output_dir("--out", dir.string(), false));
}

TEST_F(OutputPath, CheckingAnOutputFolderCreatesNothing) {
  // run checks --out and --dump before creating either: a refused --dump
  // must not leave an empty --out behind.
  const fs::path dir = fresh_dir("check-only");
  EXPECT_NO_THROW(check_output_dir("--out", (dir / "sub").string(), true));
  EXPECT_FALSE(fs::exists(dir));
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "the user's";
  try {
    check_output_dir("--dump", dir.string(), true);
    FAIL() << "a non-empty --dump was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--dump " + dir.string() + ": is not empty", 0), 0u) << e.what();
  }
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A previous run in `dir`, and the new one staged beside it by --overwrite.
fs::path previous_and_staged(const fs::path& dir, const std::string& staged_results) {
  fs::create_directories(dir / "ddp-ranks/rank0");
  fs::create_directories(dir / "report");
  std::ofstream(dir / "results.json") << R"({"complete": true, "run": "old"})";
  std::ofstream(dir / "notes.txt") << "mine";
  prepare_staging_dir(dir.string());
  const fs::path staged(staging_dir(dir.string()));
  std::ofstream(staged / "results.json") << staged_results;
  fs::create_directories(staged / "report");
  std::ofstream(staged / "report/index.html") << "new";
  return dir;
}

TEST_F(OutputPath, OverwriteReplacesThePreviousRunOnlyWithACompletedOne) {
  const fs::path dir = previous_and_staged(fresh_dir("overwrite-complete"), R"({"complete": true, "run": "new"})");
  EXPECT_TRUE(promote_staged_run(dir.string()));
  EXPECT_EQ(read(dir / "results.json"), R"({"complete": true, "run": "new"})");
  EXPECT_EQ(read(dir / "report/index.html"), "new");
  EXPECT_FALSE(fs::exists(dir / "ddp-ranks")) << "a folder of the previous run survived the replacement";
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
  EXPECT_FALSE(fs::exists(staging_dir(dir.string())));
}

TEST_F(OutputPath, AStoppedOverwritingRunLeavesThePreviousRunWhole) {
  for (const std::string& staged : {std::string(R"({"complete": false, "run": "new"})"), std::string("{\"comp")}) {
    const fs::path dir = previous_and_staged(fresh_dir("overwrite-stopped"), staged);
    EXPECT_FALSE(promote_staged_run(dir.string()));
    EXPECT_EQ(read(dir / "results.json"), R"({"complete": true, "run": "old"})");
    EXPECT_TRUE(fs::exists(dir / "ddp-ranks/rank0"));
    EXPECT_EQ(read(fs::path(staging_dir(dir.string())) / "results.json"), staged) << "the stopped run was lost";
    // The next --overwrite run starts from an empty staging folder.
    prepare_staging_dir(dir.string());
    EXPECT_TRUE(fs::is_empty(staging_dir(dir.string())));
  }
}

TEST_F(OutputPath, AFileWhereAFolderShouldBeIsRefused) {
  EXPECT_THROW(prepare_output_dir("--dump", "/dev/null", false), std::invalid_argument);
}

std::string distinct_error(const std::vector<PathUse>& in, const std::vector<PathUse>& files,
                           const std::vector<PathUse>& dirs) {
  try {
    check_distinct_paths(in, files, dirs);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_F(OutputPath, AnOutputIsNeverAnInputOrAnotherOutput) {
  const fs::path dir = fresh_dir("distinct");
  fs::create_directories(dir / "out");
  const std::string suite = (dir / "suite.json").string();
  std::ofstream(suite) << "{}";
  fs::create_symlink(suite, dir / "link.json");
  fs::create_hard_link(suite, dir / "hard.json");
  const std::string results = (dir / "out/results.json").string();
  EXPECT_EQ(distinct_error({{"--suite", suite}}, {{"--junit", (dir / "junit.xml").string()}, {"--out", results}},
                           {{"--out", (dir / "out/report").string()}}),
            "(accepted)");
  for (const std::string& same : {suite, (dir / "link.json").string(), (dir / "hard.json").string(),
                                  (dir / "out/../suite.json").string()})
    EXPECT_NE(distinct_error({{"--suite", suite}}, {{"--junit", same}}, {}).find("is the same file as --suite"),
              std::string::npos)
        << same;
  EXPECT_NE(distinct_error({}, {{"--junit", results}, {"--out", results}}, {}).find("one would overwrite the other"),
            std::string::npos);
  EXPECT_NE(distinct_error({}, {{"--junit", (dir / "out/report/j.xml").string()}}, {{"--out", (dir / "out/report/").string()}})
                .find("lies inside"),
            std::string::npos);
  EXPECT_EQ(distinct_error({}, {{"--junit", (dir / "out/reports.xml").string()}}, {{"--out", (dir / "out/report").string()}}),
            "(accepted)")
      << "a sibling whose name starts like the folder's is not inside it";
}

TEST_F(OutputPath, OverwriteReplacesOnlyAFolderAmpbenchMarked) {
  const fs::path dir = fresh_dir("marked");
  fs::create_directories(dir);
  EXPECT_NO_THROW(check_replaceable("--out", dir.string()));  // empty
  std::ofstream(dir / "notes.txt") << "mine";
  try {
    check_replaceable("--out", dir.string());
    FAIL() << "a folder of the user's own files was accepted for --overwrite";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("holds files ampbench did not write"), std::string::npos) << e.what();
  }
  mark_run_dir(dir.string(), "run");
  EXPECT_NO_THROW(check_replaceable("--out", dir.string()));
  // A run that stopped at load left only the marker: a rerun needs no --overwrite.
  const fs::path only_marker = fresh_dir("only-marker");
  fs::create_directories(only_marker);
  mark_run_dir(only_marker.string(), "run");
  EXPECT_NO_THROW(prepare_output_dir("--out", only_marker.string(), true));
}

// Each kind of folder --overwrite may meet, judged by what is in that folder
// itself: a run of today (the marker), a run from before the marker (its
// results.json alone), and everything else, refused.
TEST_F(OutputPath, OverwriteJudgesEachKindOfFolderByItsOwnContents) {
  auto accepted = [](const fs::path& dir) {
    try {
      check_replaceable("--out", dir.string());
      return true;
    } catch (const std::invalid_argument&) {
      return false;
    }
  };
  auto folder = [this](const std::string& name, const std::string& file, const std::string& text) {
    const fs::path dir = fresh_dir(name);
    fs::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << text;
    return dir;
  };
  const std::string ampbench_results = R"({"schema": "ampbench.results", "schema_version": 1, "complete": true})";
  EXPECT_TRUE(accepted(fresh_dir("kind-missing"))) << "a folder still to be created";
  EXPECT_TRUE(accepted(folder("kind-legacy-run", "results.json", ampbench_results)))
      << "an ampbench run folder from before the marker";
  EXPECT_TRUE(accepted(folder("kind-legacy-stopped", "results.json",
                              R"({"schema": "ampbench.results", "complete": false})")))
      << "a stopped run is still ampbench's";
  EXPECT_FALSE(accepted(folder("kind-other-schema", "results.json", R"({"schema": "other.results"})")));
  EXPECT_FALSE(accepted(folder("kind-no-schema", "results.json", R"({"complete": true})")));
  EXPECT_FALSE(accepted(folder("kind-array", "results.json", R"(["ampbench.results"])")));
  EXPECT_FALSE(accepted(folder("kind-malformed", "results.json", R"({"schema": "ampbench.results")")));
  EXPECT_FALSE(accepted(folder("kind-nested", "sub/results.json", ampbench_results)))
      << "a run one level down does not make its parent a run folder";
  EXPECT_FALSE(accepted(folder("kind-staged-only", std::string(kStagingName) + "/results.json", ampbench_results)))
      << "only a stopped staging folder's results, not the folder's own";
  const fs::path marked_elsewhere = folder("kind-marker-below", std::string("sub/") + kRunMarker, "");
  EXPECT_FALSE(accepted(marked_elsewhere)) << "the marker counts in the folder itself only";
  const fs::path marked = folder("kind-marked", "notes.txt", "mine");
  mark_run_dir(marked.string(), "run");
  EXPECT_TRUE(accepted(marked));
}

}  // namespace
}  // namespace ampbench::io
