// User text (an option's value, a file name, a file's bytes) quoted in an error message. The
// message must stay one line a terminal shows as it is: a newline or an escape sequence from the
// user would break it into two lines, or restyle the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reduction {

// `text` with every byte that is not printable ASCII written as \n, \t, \r or \xNN (and \ as \\),
// cut to about `max_length` characters: a 30,000-character header needs no more than its start.
inline std::string escaped(std::string_view text, std::size_t max_length = 200) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : text) {
    if (out.size() >= max_length) return out + "...";
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\\') out += "\\\\";
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
  }
  return out;
}

}  // namespace reduction
