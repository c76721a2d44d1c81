#include "gate/report.h"
#include "results/run_junit.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "gate/test_util.h"

namespace ampbench::gate {
namespace {

using namespace test;

// A minimal XML reader for the tests: checks well-formedness (one root,
// balanced tags, quoted attributes, known entities, no raw '<' or '&' in text)
// and returns the elements in document order.
struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // direct text, entities decoded
  int depth = 0;
};

std::string decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') throw std::runtime_error("raw < in text");
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const auto semi = s.find(';', i);
    if (semi == std::string::npos) throw std::runtime_error("unterminated entity");
    const std::string ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out += '&';
    else if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') out += static_cast<char>(std::stoi(ent.substr(1)));
    else throw std::runtime_error("unknown entity &" + ent + ";");
    i = semi;
  }
  return out;
}

std::vector<Element> parse_xml(const std::string& xml) {
  std::vector<Element> elements;
  std::vector<std::size_t> open;  // indexes into elements
  std::size_t i = 0;
  if (xml.rfind("<?xml ", 0) == 0) i = xml.find("?>") + 2;
  bool root_closed = false;
  while (i < xml.size()) {
    const auto lt = xml.find('<', i);
    const std::string text = xml.substr(i, lt == std::string::npos ? std::string::npos : lt - i);
    const std::string decoded = decode(text);
    if (open.empty()) {
      if (decoded.find_first_not_of(" \n\r\t") != std::string::npos) throw std::runtime_error("text outside root");
    } else {
      elements[open.back()].text += decoded;
    }
    if (lt == std::string::npos) break;
    const auto gt = xml.find('>', lt);
    if (gt == std::string::npos) throw std::runtime_error("unterminated tag");
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag[0] == '/') {
      if (open.empty() || elements[open.back()].name != tag.substr(1)) throw std::runtime_error("mismatched </" + tag);
      open.pop_back();
      if (open.empty()) root_closed = true;
      continue;
    }
    if (root_closed) throw std::runtime_error("second root element");
    const bool self_closing = tag.back() == '/';
    if (self_closing) tag.pop_back();
    Element e;
    e.depth = static_cast<int>(open.size());
    std::size_t p = tag.find_first_of(" \n");
    e.name = tag.substr(0, p);
    while (p != std::string::npos && p < tag.size()) {
      p = tag.find_first_not_of(" \n", p);
      if (p == std::string::npos) break;
      const auto eq = tag.find('=', p);
      if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"') throw std::runtime_error("bad attribute");
      const auto close = tag.find('"', eq + 2);
      if (close == std::string::npos) throw std::runtime_error("unterminated attribute");
      const std::string key = tag.substr(p, eq - p);
      if (e.attrs.count(key)) throw std::runtime_error("duplicate attribute " + key);
      e.attrs[key] = decode(tag.substr(eq + 2, close - eq - 2));
      p = close + 1;
    }
    elements.push_back(e);
    if (!self_closing) open.push_back(elements.size() - 1);
    else if (open.empty()) root_closed = true;
  }
  if (!open.empty()) throw std::runtime_error("unclosed <" + elements[open.back()].name + ">");
  if (!root_closed) throw std::runtime_error("no root element");
  return elements;
}

std::size_t count(const std::vector<Element>& els, const std::string& name) {
  std::size_t n = 0;
  for (const auto& e : els) n += e.name == name;
  return n;
}

GateReport sample_report() {
  const std::string nasty = "clip<&>\"quote'/mlp";
  const json base = make_results({make_case("a", noisy(1000, 0.01, 10, 1)), make_case(nasty), make_case("gone"),
                                  make_case("few", {1, 2, 3})});
  json cur = make_results({make_case("a", noisy(850, 0.01, 10, 2)), make_case(nasty, {}, "fail", false),
                           make_case("few", {1, 2, 3})});
  cur["cases"][1]["reason"] = "loss <diverged> & \"nan\"\nsecond line \x01 ctl";
  return compare_results(parse_results(base, "base<1>.json"), parse_results(cur, "cur.json"), GateOptions{});
}

TEST(XmlEscape, EscapesEverythingSpecial) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape("x\ny\x01z"), "x&#10;y?z");
  EXPECT_EQ(xml_escape("\xEF\xBF\xBF!"), "?!");
  EXPECT_EQ(xml_escape("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(JunitReport, WellFormedWithOneTestcasePerCaseAndCheck) {
  const GateReport r = sample_report();
  const std::string xml = junit_report(r);
  std::vector<Element> els;
  ASSERT_NO_THROW(els = parse_xml(xml)) << xml;
  ASSERT_FALSE(els.empty());
  EXPECT_EQ(els[0].name, "testsuite");
  EXPECT_EQ(count(els, "testsuite"), 1u);
  EXPECT_EQ(count(els, "testcase"), r.checks.size());
  EXPECT_EQ(els[0].attrs.at("tests"), std::to_string(r.checks.size()));
  // Regressions: a's throughput, the nasty case's conformance, "gone".
  EXPECT_EQ(r.count(GateVerdict::Regression), 3u);
  EXPECT_EQ(count(els, "failure"), 3u);
  EXPECT_EQ(els[0].attrs.at("failures"), "3");
  bool saw_nasty = false;
  bool saw_numbers = false;
  for (std::size_t i = 0; i < els.size(); ++i) {
    if (els[i].name != "testcase") continue;
    EXPECT_TRUE(els[i].attrs.at("name") == "conformance" || els[i].attrs.at("name") == "throughput");
    if (els[i].attrs.at("classname") == "clip<&>\"quote'/mlp") {
      saw_nasty = true;
      ASSERT_EQ(els[i + 1].name, "failure");
      EXPECT_NE(els[i + 1].attrs.at("message").find("loss <diverged> & \"nan\"\nsecond line ? ctl"), std::string::npos);
    }
    if (els[i].attrs.at("classname") == "a" && els[i].attrs.at("name") == "throughput") {
      ASSERT_EQ(els[i + 1].name, "failure");
      const std::string& body = els[i + 1].text;
      EXPECT_NE(body.find("change: -15."), std::string::npos) << body;
      EXPECT_NE(body.find("p-value: "), std::string::npos) << body;
      EXPECT_NE(els[i + 1].attrs.at("message").find("median 1"), std::string::npos);
      saw_numbers = true;
    }
  }
  EXPECT_TRUE(saw_nasty);
  EXPECT_TRUE(saw_numbers);
  // The insufficient-repetitions warning is a skipped testcase.
  EXPECT_GE(count(els, "skipped"), 1u);
}

TEST(MarkdownReport, TableWithEscapedCells) {
  const std::string md = markdown_report(sample_report());
  EXPECT_NE(md.find("### ❌ ampbench gate: regression"), std::string::npos);
  EXPECT_NE(md.find("| case | check | baseline | current | change | p-value | verdict |"), std::string::npos);
  EXPECT_NE(md.find("| a | throughput |"), std::string::npos);
  EXPECT_NE(md.find("clip&lt;&amp;&gt;\"quote'/mlp"), std::string::npos);
  EXPECT_NE(md.find("insufficient repetitions"), std::string::npos);
  // No raw line break inside a table row.
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line[0] == '|') {
      EXPECT_EQ(line.back(), '|') << line;
    }
  }
}

TEST(TextReport, OneLinePerCheckAndSummary) {
  const GateReport r = sample_report();
  std::ostringstream out;
  write_text_report(r, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("id"), std::string::npos);
  EXPECT_NE(text.find("p-value"), std::string::npos);
  EXPECT_NE(text.find("warning: insufficient repetitions"), std::string::npos);
  EXPECT_NE(text.find("REGRESSION: a [throughput]: slower: median"), std::string::npos) << text;
  EXPECT_NE(text.find("gate: FAIL: "), std::string::npos);
  EXPECT_NE(text.find("3 regressions"), std::string::npos);
  std::size_t rows = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const auto& c : r.checks) {
      if (line.rfind(c.id + " ", 0) == 0 && line.find(" " + c.check + " ") != std::string::npos) {
        ++rows;
        break;
      }
    }
  }
  EXPECT_EQ(rows, r.checks.size()) << text;
}

TEST(RunJunit, OneTestcasePerCase) {
  json doc = make_results({make_case("ok"), make_case("bad", {}, "fail", false), make_case("sk", {}, "skipped"),
                           make_case("err", {}, "error", false)});
  doc["cases"][1]["check"] = {{"metrics", {{"param_rel_l2", 0.31}}},
                              {"tolerances", {{"param_rel_l2", 0.02}}},
                              {"first_crossing_step", 4},
                              {"failures", {"param_rel_l2 0.31 > 0.02"}}};
  const std::string xml = run_junit(parse_results(doc, "r.json"));
  std::vector<Element> els;
  ASSERT_NO_THROW(els = parse_xml(xml)) << xml;
  EXPECT_EQ(count(els, "testcase"), 4u);
  EXPECT_EQ(count(els, "failure"), 1u);
  EXPECT_EQ(count(els, "error"), 1u);
  EXPECT_EQ(count(els, "skipped"), 1u);
  EXPECT_EQ(els[0].attrs.at("name"), "ampbench run: smoke");
  EXPECT_EQ(els[0].attrs.at("failures"), "1");
  for (const auto& e : els) {
    if (e.name == "failure") {
      EXPECT_NE(e.text.find("metrics.param_rel_l2: 0.31"), std::string::npos) << e.text;
      EXPECT_NE(e.text.find("tolerances.param_rel_l2: 0.02"), std::string::npos);
      EXPECT_NE(e.text.find("first_crossing_step: 4"), std::string::npos);
    }
  }
  TempDir dir;
  write_run_junit(parse_results(doc, "r.json"), dir.file("sub/run.xml"));
  EXPECT_EQ(read_text(dir.file("sub/run.xml")), xml);
}

// A CI dashboard tells two generations of one CPU name apart by the
// properties: the generation and the kernels' ceiling are among them.
TEST(RunJunit, PropertiesNameTheCpuGeneration) {
  json doc = make_results({make_case("ok")}, make_env("cpu", "none", "AMD EPYC"));
  doc["env"]["cpu_id"] = "AuthenticAMD family 26 model 2";
  doc["env"]["cpu_capability"] = "AVX2";
  std::map<std::string, std::string> properties;
  for (const auto& e : parse_xml(run_junit(parse_results(doc, "r.json"))))
    if (e.name == "property") properties[e.attrs.at("name")] = e.attrs.at("value");
  EXPECT_EQ(properties["cpu_model"], "AMD EPYC");
  EXPECT_EQ(properties["cpu_id"], "AuthenticAMD family 26 model 2");
  EXPECT_EQ(properties["cpu_capability"], "AVX2");
}

}  // namespace
}  // namespace ampbench::gate
