#include "io/json_file.h"
#include "io/temp_dir_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ampbench::io {
namespace {

std::string problem_of(const std::string& path, const JsonLimits& limits = {}) {
  try {
    read_json_file(path, limits);
  } catch (const JsonFileError& e) {
    EXPECT_EQ(e.file(), path);
    return e.problem();
  }
  return "(no error)";
}

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonFile, ReadsAValidFile) {
  const test::TempDir tmp;
  const auto path = tmp.write("ok.json", R"({"a": [1, {"b": 2}]})");
  EXPECT_EQ(read_json_file(path)["a"][1]["b"], 2);
}

TEST(JsonFile, RefusesADeviceInsteadOfReadingForever) {
  EXPECT_NE(problem_of("/dev/zero").find("not a regular file"), std::string::npos);
}

TEST(JsonFile, RefusesMissingFilesAndDirectories) {
  EXPECT_EQ(problem_of("/no/such/file.json"), "no such file");
  EXPECT_NE(problem_of("/tmp").find("is a directory"), std::string::npos);
}

TEST(JsonFile, RefusesAFileOverTheSizeLimit) {
  const test::TempDir tmp;
  const auto path = tmp.write("big.json", "[" + std::string(2000, ' ') + "]");
  JsonLimits small;
  small.max_bytes = 1000;
  EXPECT_NE(problem_of(path, small).find("too large: 2002 bytes"), std::string::npos);
}

TEST(JsonFile, AcceptsNestingUpToTheLimitAndRefusesOneMore) {
  JsonLimits limits;
  limits.max_depth = 10;
  EXPECT_NO_THROW(parse_json_text(nested(10), "x.json", limits));
  EXPECT_THROW(parse_json_text(nested(11), "x.json", limits), JsonFileError);
}

TEST(JsonFile, DeepNestingIsRefusedWithoutCrashing) {
  const test::TempDir tmp;
  // 100,000 deep crashed the recursive destructor before the limit.
  const auto path = tmp.write("deep.json", nested(100000));
  EXPECT_EQ(problem_of(path), "nested deeper than 64 levels");
  const auto objects = tmp.write("deep-objects.json", [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += "{\"a\":";
    return s + "1" + std::string(100000, '}');
  }());
  EXPECT_EQ(problem_of(objects), "nested deeper than 64 levels");
}

TEST(JsonFile, MalformedJsonNamesTheParserPosition) {
  const test::TempDir tmp;
  const auto path = tmp.write("bad.json", "{\"a\": }");
  const std::string problem = problem_of(path);
  EXPECT_EQ(problem.rfind("not valid JSON: parse error at line 1, column 7", 0), 0u) << problem;
  EXPECT_NE(problem.find("unexpected '}'"), std::string::npos) << problem;
}

}  // namespace
}  // namespace ampbench::io
