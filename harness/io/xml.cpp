#include "io/xml.h"

namespace ampbench::io {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto ch = static_cast<unsigned char>(text[i]);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (ch < 0x20) {
          out += '?';  // not representable in XML 1.0, not even as a reference
        } else if (ch == 0xEF && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
                   (static_cast<unsigned char>(text[i + 2]) & 0xFE) == 0xBE) {
          out += '?';  // U+FFFE / U+FFFF
          i += 2;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out;
}

// Element text keeps real line breaks (only attributes need them escaped).
std::string xml_text(std::string_view text) {
  std::string escaped = xml_escape(text);
  std::string out;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped.compare(i, 5, "&#10;") == 0) {
      out += '\n';
      i += 4;
    } else {
      out += escaped[i];
    }
  }
  return out;
}

std::string xml_attr(const std::string& name, const std::string& value) {
  return " " + name + "=\"" + xml_escape(value) + "\"";
}

std::string xml_property(const std::string& name, const std::string& value) {
  return "    <property" + xml_attr("name", name) + xml_attr("value", value) + "/>\n";
}

}  // namespace ampbench::io
