#include "runner/case_filter.h"
#include "spec/workload_traits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace ampbench {
namespace {

CaseSpec case_with_id(const std::string& id) {
  CaseSpec c;
  c.id = id;
  c.workload = &workload_traits("clip_norm");
  c.model = find_model_family("mlp");
  return c;
}

std::string error_of(const std::string& filter) {
  try {
    parse_case_filter(filter);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(CaseFilter, FieldFormIsRecognisedByHand) {
  EXPECT_TRUE(is_field_filter("workload=clip"));
  EXPECT_TRUE(is_field_filter("workload=clip,precision=fp16|bf16"));
  EXPECT_FALSE(is_field_filter("^plain/mlp/"));
  EXPECT_FALSE(is_field_filter("workload="));
  EXPECT_FALSE(is_field_filter("=clip"));
  EXPECT_FALSE(is_field_filter("Workload=clip"));
  EXPECT_FALSE(is_field_filter("workload=a=b"));
  EXPECT_FALSE(is_field_filter("workload=clip,"));
}

TEST(CaseFilter, FieldsAndRegexSelect) {
  const CaseSpec c = case_with_id("clip_norm/mlp/fp16/sgd");
  EXPECT_TRUE(parse_case_filter("workload=clip,model=mlp")(c));
  EXPECT_FALSE(parse_case_filter("model=cnn")(c));
  EXPECT_TRUE(parse_case_filter("^clip_norm/mlp/")(c));
  EXPECT_FALSE(parse_case_filter("^mlp")(c));
}

TEST(CaseFilter, PathologicalRegexMatchesInLinearTime) {
  // std::regex backtracked for over a minute on this.
  const auto start = std::chrono::steady_clock::now();
  const auto matches = parse_case_filter("^(.*)*(.*)*(.*)*(.*)*(.*)*$x");
  EXPECT_FALSE(matches(case_with_id(std::string(200, 'a'))));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CaseFilter, LongFiltersDoNotRecurse) {
  // 30,000 characters overflowed std::regex's recursive matcher.
  EXPECT_FALSE(parse_case_filter(std::string(30000, 'a'))(case_with_id("plain")));
  const std::string fields = "tag=" + std::string(30000, 'x');
  EXPECT_FALSE(parse_case_filter(fields)(case_with_id("plain")));
}

TEST(CaseFilter, TooLongOrInvalidIsRefusedWithTheReason) {
  EXPECT_NE(error_of(std::string(kMaxFilterLength + 1, 'a')).find("characters long (at most 65536)"),
            std::string::npos);
  EXPECT_NE(error_of("([").find("is not a valid regular expression: missing ]"), std::string::npos)
      << error_of("([");
  EXPECT_NE(error_of("colour=red").find("unknown field 'colour'"), std::string::npos);
}

TEST(CaseFilter, QuotedIdMatchesOnlyItself) {
  const std::string id = "plain+no_scaler/mlp/fp16/sgd@tiny.grad";
  const auto exact = parse_case_filter("^(" + quote_regex(id) + ")$");
  EXPECT_TRUE(exact(case_with_id(id)));
  EXPECT_FALSE(exact(case_with_id("plain+no_scaler/mlp/fp16/sgd@tinyXgrad")));
}

}  // namespace
}  // namespace ampbench
