// The few pieces of XML the JUnit writers need (the gate's and the run's).
#pragma once

#include <string>
#include <string_view>

namespace ampbench::io {

// Escapes & < > " ' and replaces characters XML 1.0 forbids.
std::string xml_escape(std::string_view text);
// Element text: escaped, but keeping real line breaks (only attributes need
// them escaped).
std::string xml_text(std::string_view text);
// ` name="value"`, escaped.
std::string xml_attr(const std::string& name, const std::string& value);
// A JUnit <property name=... value=.../> line.
std::string xml_property(const std::string& name, const std::string& value);

}  // namespace ampbench::io
