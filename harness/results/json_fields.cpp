#include "results/json_fields.h"

#include <cmath>

#include "io/json_file.h"

namespace ampbench::json_fields {

using nlohmann::json;

const char* type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    default: return "an unsupported value";
  }
}

// Error helpers naming the JSON location ("cases[3] (id \"x\")").
[[noreturn]] void fail(const std::string& path, const std::string& where, const std::string& problem) {
  throw InputFileError(path, where.empty() ? problem : where + ": " + problem);
}

const json& require(const json& obj, const char* key, const std::string& path, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(path, where, std::string("missing required key \"") + key + "\"");
  return *it;
}

std::string require_string(const json& obj, const char* key, const std::string& path, const std::string& where) {
  const json& v = require(obj, key, path, where);
  if (!v.is_string()) fail(path, where, std::string("\"") + key + "\" must be a string, got " + type_name(v));
  return v.get<std::string>();
}

std::string as_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  return v.dump();
}

std::optional<double> read_gate_object(const json& parent, const std::string& path, const std::string& where) {
  const auto it = parent.find("gate");
  if (it == parent.end() || it->is_null()) return std::nullopt;
  const std::string here = where.empty() ? "\"gate\"" : where + ": \"gate\"";
  if (!it->is_object()) fail(path, here, std::string("must be an object, got ") + type_name(*it));
  const auto me = it->find("min_effect");
  if (me == it->end() || me->is_null()) return std::nullopt;
  if (!me->is_number() || !std::isfinite(me->get<double>()) || me->get<double>() < 0.0) {
    fail(path, here, "\"min_effect\" must be a number >= 0 (a fraction: 0.05 = 5%)");
  }
  return me->get<double>();
}

std::optional<long long> optional_int(const json& obj, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<long long>();
}

json read_json_file(const std::string& path) {
  try {
    return io::read_json_file(path);
  } catch (const io::JsonFileError& e) {
    throw InputFileError(e.file(), e.problem());
  }
}

}  // namespace ampbench::json_fields
