#include "program.hpp"
#include "limits.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

// A file named by the user is untrusted: every size read from it is checked against the file's
// real size before anything is allocated, and every parse looks at each byte once, whatever the
// file holds (no regular expressions, no recursion).

namespace reduction {

std::string escaped(std::string_view text, std::size_t max_length) {
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

namespace {

// An open regular file, read by offset.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : name_(escaped(path)) {
    if (path.empty()) throw InputError("--input names no file");
    // Look before opening: opening a FIFO waits for a writer, a device may act on being opened,
    // and a directory, a FIFO or /dev/zero has no size to check, or never ends.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) throw InputError("cannot open input file '" + name_ + "': " + std::strerror(errno));
    refuse_unless_regular(st);
    fd_.number = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_.number < 0) throw InputError("cannot open input file '" + name_ + "': " + std::strerror(errno));
    // The path may name something else by now: check what was opened.
    if (::fstat(fd_.number, &st) != 0)
      throw InputError("cannot read input file '" + name_ + "': " + std::strerror(errno));
    refuse_unless_regular(st);
    size_ = static_cast<std::uint64_t>(st.st_size);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& name() const { return name_; }  // the path, escaped for messages
  std::uint64_t size() const { return size_; }

  // Reads up to `count` bytes at `offset`; fewer only where the file ends.
  std::size_t read_at(std::uint64_t offset, void* out, std::size_t count) const {
    std::size_t done = 0;
    while (done < count) {
      const ssize_t got =
          ::pread(fd_.number, static_cast<char*>(out) + done, count - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw InputError("cannot read input file '" + name_ + "': " + std::strerror(errno));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }

 private:
  void refuse_unless_regular(const struct stat& st) const {
    if (S_ISREG(st.st_mode)) return;
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    throw InputError("input file '" + name_ + "' is " + kind + ", not a regular file");
  }

  // Closed by its destructor, which runs also where InputFile's constructor throws.
  struct Descriptor {
    int number = -1;
    ~Descriptor() {
      if (number >= 0) ::close(number);
    }
  };

  std::string name_;
  Descriptor fd_;
  std::uint64_t size_ = 0;
};

template <typename T> void reject_non_finite(const std::vector<T>& v, const InputFile& file) {
  if constexpr (!std::is_integral_v<T>) {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw InputError(file.name() + ": element " + std::to_string(i) + " is " + (std::isnan(v[i]) ? "NaN" : "infinite") +
                         "; a reduction of it has no meaningful reference");
  }
}

InputError too_many(const InputFile& file, const std::string& count, std::size_t max_elements) {
  return InputError(file.name() + " holds " + count + "; this program takes at most " + std::to_string(max_elements));
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// ---- .npy ----

// fortran_order is read and checked, but a 1-D array is laid out the same in C and Fortran order.
struct NpyHeader {
  std::string descr;
  std::vector<std::uint64_t> shape;
};

// The header is a Python dictionary literal, such as
//     {'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }
// read here as one: key by key, each value whole, so a 'shape' inside a string is only text, and
// each byte is looked at once however long the header is. Keys other than the three the format
// defines are read and ignored.
class NpyHeaderParser {
 public:
  // `context` starts every error message: the file and what is wrong with it.
  NpyHeaderParser(std::string_view text, std::string context) : text_(text), context_(std::move(context)) {}

  NpyHeader parse() {
    NpyHeader header;
    bool seen_descr = false, seen_order = false, seen_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        once(seen_descr, key);
        header.descr = string_literal();
      } else if (key == "fortran_order") {
        once(seen_order, key);
        boolean();
      } else if (key == "shape") {
        once(seen_shape, key);
        header.shape = shape();
      } else {
        other_value();
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    skip_space();
    if (pos_ != text_.size()) fail("text after the dictionary");
    if (!seen_descr || !seen_order || !seen_shape)
      throw InputError(context_ + "the header lacks '" + (!seen_descr ? "descr" : !seen_order ? "fortran_order" : "shape") + "'");
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(context_ + what + " at byte " + std::to_string(pos_) + " of the header");
  }
  void once(bool& seen, const std::string& key) const {
    if (seen) fail("'" + key + "' given twice");
    seen = true;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool accept_word(std::string_view word) {
    skip_space();
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // '...' or "...". A backslash keeps the character after it: none of the values used here
  // contains one, so that character only has to end up in the error message.
  std::string string_literal() {
    skip_space();
    if (at_end() || (text_[pos_] != '\'' && text_[pos_] != '"')) fail("expected a quoted string");
    const char quote = text_[pos_++];
    std::string s;
    while (!at_end() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      s += text_[pos_++];
    }
    if (at_end()) fail("unterminated string");
    ++pos_;
    return s;
  }

  void boolean() {
    if (!accept_word("True") && !accept_word("False")) fail("expected True or False");
  }

  // A dimension: decimal digits, within 64 bits.
  std::uint64_t dimension() {
    skip_space();
    const std::size_t start = pos_;
    while (!at_end() && is_digit(text_[pos_])) ++pos_;
    if (pos_ == start) fail("expected a dimension");
    const auto value = parse_digits(text_.substr(start, pos_ - start));
    if (!value) fail("a dimension too large for 64 bits");
    if (!at_end() && text_[pos_] == 'L') ++pos_;  // Python 2 wrote long integers as 3L
    return *value;
  }

  // A tuple of dimensions: (), (3,), (2, 3) or (2, 3,). (3) is a number, not a tuple.
  std::vector<std::uint64_t> shape() {
    expect('(');
    std::vector<std::uint64_t> dims;
    bool trailing_comma = false;
    while (!accept(')')) {
      dims.push_back(dimension());
      trailing_comma = accept(',');
      if (!trailing_comma) {
        expect(')');
        break;
      }
    }
    if (dims.size() == 1 && !trailing_comma) fail("a 1-D shape is written (n,), with a comma");
    return dims;
  }

  void other_value() {
    skip_space();
    if (!at_end() && (text_[pos_] == '\'' || text_[pos_] == '"')) string_literal();
    else if (!at_end() && text_[pos_] == '(') shape();
    else if (!accept_word("None") && !accept_word("True") && !accept_word("False")) fail("expected a value");
  }

  std::string_view text_;
  std::string context_;
  std::size_t pos_ = 0;
};

template <typename T>
std::vector<T> read_elements(const InputFile& file, std::uint64_t offset, std::size_t n) {
  std::vector<T> v(n);
  if (file.read_at(offset, v.data(), n * sizeof(T)) != n * sizeof(T))
    throw InputError(file.name() + ": the file became shorter while it was read");
  return v;
}

HostData read_npy(const InputFile& file, std::size_t max_elements) {
  auto fail = [&](const std::string& why) { return InputError(file.name() + ": not a valid .npy file: " + why); };
  unsigned char preamble[12] = {};
  const std::size_t got = file.read_at(0, preamble, sizeof preamble);
  if (got < 6 || std::memcmp(preamble, "\x93NUMPY", 6) != 0) throw fail("missing the \\x93NUMPY magic");
  // Version 1 gives the header's length in 2 bytes, versions 2 and 3 in 4 (little-endian).
  const unsigned major = preamble[6];
  const std::uint64_t header_start = major == 1 ? 10 : 12;
  if (got < header_start || file.size() < header_start) throw fail("truncated header");
  if (major < 1 || major > 3) throw fail("unknown format version " + std::to_string(major));
  std::uint64_t header_length = 0;
  for (std::uint64_t i = header_start; i-- > 8;) header_length = (header_length << 8) | preamble[i];
  // The header of a 1-D array takes under 128 bytes. Like numpy (np.load's max_header_size), this
  // reader takes none longer than 10,000, and refuses a longer one before reading it.
  constexpr std::uint64_t kLongestHeader = 10000;
  if (header_length > kLongestHeader)
    throw fail("the header is " + std::to_string(header_length) + " bytes long, more than the " +
               std::to_string(kLongestHeader) + " numpy reads by default");
  if (header_length > file.size() - header_start)
    throw fail("the header is " + std::to_string(header_length) + " bytes long, but only " +
               std::to_string(file.size() - header_start) + " follow its length");

  std::string text(static_cast<std::size_t>(header_length), '\0');
  if (file.read_at(header_start, text.data(), text.size()) != text.size())
    throw fail("the file became shorter while it was read");
  const NpyHeader header = NpyHeaderParser(text, file.name() + ": not a valid .npy file: ").parse();

  const std::string shape = "(" + join(header.shape) + (header.shape.size() == 1 ? ",)" : ")");
  if (header.shape.size() != 1)
    throw InputError(file.name() + ": only 1-D arrays are supported, this one has shape " + escaped(shape));

  // '<' is little-endian, '|' and '=' native; the machines CUDA runs on are little-endian.
  const std::string& d = header.descr;
  const bool known_order = d.size() == 3 && (d[0] == '<' || d[0] == '|' || d[0] == '=');
  const std::string code = known_order ? d.substr(1) : "";
  if (code != "i4" && code != "f4" && code != "f8")
    throw InputError(file.name() + ": unsupported dtype '" + escaped(d) + "' (use int32, float32 or float64)");
  const std::uint64_t item = code == "f8" ? 8 : 4;

  // Compare with the file before multiplying: n * item may not fit in 64 bits.
  const std::uint64_t n = header.shape[0];
  const std::uint64_t data_start = header_start + header_length, available = file.size() - data_start;
  if (n > available / item || n * item != available) {
    const std::string needed = n > std::numeric_limits<std::uint64_t>::max() / item ? "more than 2^64"
                                                                                    : std::to_string(n * item);
    throw fail("shape " + shape + " of '" + d + "' needs " + needed + " bytes of data, the file has " +
               std::to_string(available));
  }
  if (n > max_elements) throw too_many(file, std::to_string(n) + " elements", max_elements);
  // Refused here, naming the limit, rather than left to the OOM killer (limits.hpp).
  if (auto why = memory_refusal(n, item, file.name() + ": its " + std::to_string(n) + " elements"))
    throw InputError(*why);

  if (code == "i4") return read_elements<std::int32_t>(file, data_start, static_cast<std::size_t>(n));
  if (code == "f4") return read_elements<float>(file, data_start, static_cast<std::size_t>(n));
  return read_elements<double>(file, data_start, static_cast<std::size_t>(n));
}

// ---- text ----

bool may_be_in_number(char c) {
  return is_digit(c) || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == 'n' || c == 'a' || c == 'i' ||
         c == 'f';
}
bool is_non_finite(std::string_view t) {
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
  return t == "nan" || t == "inf";
}

// Whether `t` is a decimal number: [+-] digits [. digits] [(e|E) [+-] digits], with digits on at
// least one side of the point. `integer`: it has neither point nor exponent.
bool is_number(std::string_view t, bool& integer) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < t.size() && is_digit(t[i])) ++i;
    return i - start;
  };
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  std::size_t mantissa = digits();
  integer = true;
  if (i < t.size() && t[i] == '.') {
    ++i;
    mantissa += digits();
    integer = false;
  }
  if (mantissa == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    integer = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == t.size();
}

// Streams the file through a fixed buffer into an int vector while every value is a 32-bit
// integer, then into a double vector: 4 or 8 bytes a value, however long it is written.
HostData read_text(const InputFile& file, std::size_t max_elements) {
  // A double needs 17 significant digits; even its exact decimal value, written with an exponent,
  // takes under 800 characters. A longer "number" is refused before it costs anything.
  constexpr std::size_t kLongestNumber = 1000;
  std::vector<std::int32_t> ints;
  std::vector<double> doubles;
  bool all_int = true;
  std::string token;
  std::uint64_t token_start = 0;

  // The memory this process may have, as for a .npy file; the values take 4 or 8 bytes each.
  const std::optional<MemoryLimit> memory = memory_limit();
  auto check_memory = [&](std::size_t count) {
    const std::uint64_t element = all_int ? 4 : 8;
    if (memory && count > memory->bytes / element)
      throw InputError(file.name() + ": its first " + std::to_string(count) + " numbers take " +
                       std::to_string(count * element) + " bytes, and " + memory->what);
  };
  auto add = [&] {
    const std::size_t count = all_int ? ints.size() : doubles.size();
    if (count == max_elements) throw too_many(file, "more than " + std::to_string(max_elements) + " numbers", max_elements);
    check_memory(count + 1);
    auto where = [&] { return file.name() + ": the number at byte " + std::to_string(token_start) + " ('" + escaped(token) + "')"; };
    bool integer = false;
    if (!is_non_finite(token) && !is_number(token, integer)) throw InputError(where() + " is not a decimal number");
    errno = 0;
    if (all_int && integer) {
      const long long v = std::strtoll(token.c_str(), nullptr, 10);
      if (errno != ERANGE && v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max()) {
        ints.push_back(static_cast<std::int32_t>(v));
        return;
      }
    }
    if (all_int) {  // the first value that is not a 32-bit integer: the file is read as double
      all_int = false;
      check_memory(ints.size() + 1);
      doubles.assign(ints.begin(), ints.end());
      std::vector<std::int32_t>().swap(ints);
    }
    errno = 0;
    const double v = std::strtod(token.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v)) throw InputError(where() + " is too large for a double");
    doubles.push_back(v);  // an underflow to zero or a subnormal is still the nearest double
  };

  // On the heap: 64 KiB on the stack is a crash under a small stack limit (ulimit -s 64).
  std::vector<char> buffer(std::size_t(1) << 16);
  // Read to the size the file had when it was opened, though it grows while it is read (a log).
  std::uint64_t offset = 0;
  for (;;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), file.size() - offset));
    const std::size_t got = want == 0 ? 0 : file.read_at(offset, buffer.data(), want);
    for (std::size_t i = 0; i < got; ++i) {
      const char c = buffer[i];
      if (is_space(c)) {
        if (!token.empty()) add(), token.clear();
        continue;
      }
      if (!may_be_in_number(c))
        throw InputError(file.name() + ": byte " + std::to_string(offset + i) + " is '" + escaped(std::string_view(&c, 1)) +
                         "', which is neither part of a number nor whitespace");
      if (token.empty()) token_start = offset + i;
      if (token.size() == kLongestNumber)
        throw InputError(file.name() + ": the number at byte " + std::to_string(token_start) + " is longer than " +
                         std::to_string(kLongestNumber) + " characters");
      token += c;
    }
    if (got < want || offset + got == file.size()) break;
    offset += got;
  }
  if (!token.empty()) add();
  if (all_int) return ints;
  return doubles;
}

}  // namespace

HostData load_input(const std::string& path, std::size_t max_elements, bool finite) {
  const InputFile file(path);
  const bool npy_name = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  char magic[6] = {};
  const bool npy_magic = file.read_at(0, magic, sizeof magic) == sizeof magic && std::memcmp(magic, "\x93NUMPY", 6) == 0;
  HostData data = npy_name || npy_magic ? read_npy(file, max_elements) : read_text(file, max_elements);
  if (finite) std::visit([&](const auto& v) { reject_non_finite(v, file); }, data);
  return data;
}

}  // namespace reduction
