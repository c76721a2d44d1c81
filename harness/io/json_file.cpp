#include "io/json_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

namespace ampbench::io {

using nlohmann::json;

JsonFileError::JsonFileError(std::string file, std::string problem)
    : std::runtime_error(file + ": " + problem), file_(std::move(file)), problem_(std::move(problem)) {}

std::string strip_json_prefix(const std::string& what) {
  if (!what.empty() && what.front() == '[') {
    const auto close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

namespace {

// Thrown from the parser callback: unwinds the parser before it descends
// further, so no value deeper than the limit is ever built.
struct TooDeep {};

std::string read_bounded(const std::string& path, std::uintmax_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw JsonFileError(path, "no such file");
  if (fs::is_directory(status)) throw JsonFileError(path, "is a directory, not a JSON file");
  // A device, FIFO or socket has no size and may never end (/dev/zero).
  if (!fs::is_regular_file(status)) throw JsonFileError(path, "not a regular file (a device, FIFO or socket)");
  const std::uintmax_t size = fs::file_size(path, ec);
  const std::string limit = std::to_string(max_bytes >> 20) + " MiB";
  if (!ec && size > max_bytes)
    throw JsonFileError(path, "too large: " + std::to_string(size) + " bytes (limit " + limit + ")");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JsonFileError(path, std::string("cannot be opened for reading: ") + std::strerror(errno));
  // Read at most one byte past the limit: the file may grow after the stat.
  std::string text(static_cast<std::size_t>(std::min<std::uintmax_t>(size, max_bytes)) + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) throw JsonFileError(path, "too large: grew past the limit of " + limit);
  if (in.bad()) throw JsonFileError(path, "read error");
  return text;
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& path, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes)
    throw JsonFileError(path, "too large: " + std::to_string(text.size()) + " bytes (limit " +
                                  std::to_string(limits.max_bytes >> 20) + " MiB)");
  const int max_depth = limits.max_depth;
  // depth counts the containers already open around the event.
  const json::parser_callback_t guard = [max_depth](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= max_depth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text, guard);
  } catch (const TooDeep&) {
    throw JsonFileError(path, "nested deeper than " + std::to_string(max_depth) + " levels");
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number like 1e400.
    throw JsonFileError(path, "not valid JSON: " + strip_json_prefix(e.what()));
  }
}

json read_json_file(const std::string& path, const JsonLimits& limits) {
  return parse_json_text(read_bounded(path, limits.max_bytes), path, limits);
}

}  // namespace ampbench::io
