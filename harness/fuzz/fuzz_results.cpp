// libFuzzer target: the gate's readers (ampbench results and Google
// Benchmark JSON) behind the bounded JSON parser. Every input must be read
// or refused with a GateInputError / JsonFileError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gate/results_file.h"
#include "io/json_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ampbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = io::parse_json_text(text, "fuzz.json");
    if (gate::detect_kind(doc) == gate::InputKind::GoogleBenchmark) {
      gate::parse_gbench(doc, "fuzz.json");
    } else {
      gate::parse_results(doc, "fuzz.json");
    }
  } catch (const io::JsonFileError&) {
  } catch (const gate::GateInputError&) {
  } catch (const nlohmann::json::exception&) {
    // The CLI maps these to exit 2 as well (gate_main.cpp rethrow_as_input_error).
  }
  return 0;
}
