// What the bodies of program.hpp (options.cpp, report.cpp) share, and its tests check, but no
// chapter's main calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "program.hpp"

namespace reduction {

// Decimal digits only, at most 2^64 - 1; nothing for anything else (a sign, a space, "").
std::optional<std::uint64_t> parse_digits(std::string_view text);

// The names of the chapter's variants, in its order: what --kernel takes.
std::vector<std::string> variant_names(const ChapterInfo& info);

// The same without the bug zoo's: what runs when --kernel is not given.
std::vector<std::string> default_variant_names(const ChapterInfo& info);

// Whether everything the program wrote on stdout reached it (flushed; a pipe whose reader has gone,
// a full disk, a closed stdout: one line on stderr and false, and the program exits with
// kOutputFailed, since output that never arrived must not pass for a success).
bool output_written(const std::string& program);

}  // namespace reduction
