// The .npy header: the Python dict literal numpy.save writes and numpy.load reads with
// ast.literal_eval. Only what numpy accepts for a plain array is accepted here: a dict of exactly
// 'descr', 'fortran_order' and 'shape' (any order, either quote style, any whitespace).
#include <cstdint>
#include <sstream>

#include "npy_format.h"

namespace ember::record::detail {
namespace {

struct DescrEntry {
  std::string_view code;  // kind and size, after the byte-order character
  DType dtype;
};

constexpr DescrEntry kDescrs[] = {
    {"f8", DType::F64}, {"f4", DType::F32}, {"f2", DType::F16}, {"i8", DType::I64},
    {"i4", DType::I32}, {"i2", DType::I16}, {"i1", DType::I8},  {"u8", DType::U64},
    {"u4", DType::U32}, {"u2", DType::U16}, {"u1", DType::U8},  {"b1", DType::Bool},
};

/// A cursor over the dict text; every refusal names the byte offset in the header.
class DictParser {
 public:
  DictParser(std::string_view text, const Failure& fail) : text_(text), fail_(fail) {}

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c, std::string_view where) {
    if (!eat(c)) fail_("header: expected '", c, "' ", where, " at byte ", pos_, found());
  }

  /// A quoted string without escapes (numpy's keys and descrs have none).
  std::string_view string(std::string_view what) {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      fail_("header: expected a quoted ", what, " at byte ", pos_, found());
    const char quote = text_[pos_++];
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' || text_[pos_] == '\n')
        fail_("header: ", what, " at byte ", begin, " holds an escape or a line break");
      ++pos_;
    }
    if (pos_ >= text_.size()) fail_("header: ", what, " at byte ", begin, " is not closed");
    return text_.substr(begin, pos_++ - begin);
  }

  bool boolean() {
    skip_space();
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    fail_("header field 'fortran_order': expected True or False at byte ", pos_, found());
  }

  /// A tuple of non-negative ints: (), (3,), (2, 3) or (2, 3,).
  Shape shape() {
    expect('(', "to open the 'shape' tuple");
    std::vector<int64_t> dims;
    bool trailing_comma = false;
    while (!eat(')')) {
      if (!dims.empty() && !trailing_comma)
        fail_("header field 'shape': expected ',' or ')' at byte ", pos_, found());
      dims.push_back(dim());
      trailing_comma = eat(',');
    }
    // (3) is the int 3 in Python, not a tuple: numpy refuses it too.
    if (dims.size() == 1 && !trailing_comma)
      fail_("header field 'shape': (", dims[0], ") is not a tuple (a 1-d shape is written (",
            dims[0], ",))");
    return Shape(std::move(dims));
  }

  std::size_t pos() const { return pos_; }
  bool at_end() {
    skip_space();
    return pos_ == text_.size();
  }
  std::string found() const {
    if (pos_ >= text_.size()) return " (the header ends there)";
    const unsigned char c = static_cast<unsigned char>(text_[pos_]);
    std::ostringstream out;
    if (c >= 0x20 && c < 0x7f)
      out << " (found '" << text_[pos_] << "')";
    else
      out << " (found byte " << static_cast<int>(c) << ")";
    return out.str();
  }

 private:
  int64_t dim() {
    skip_space();
    const std::size_t begin = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-')
      fail_("header field 'shape': a dim at byte ", begin, " is negative");
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
      fail_("header field 'shape': expected an integer dim at byte ", pos_, found());
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      if (__builtin_mul_overflow(value, 10, &value) ||
          __builtin_add_overflow(value, text_[pos_] - '0', &value))
        fail_("header field 'shape': the dim at byte ", begin, " exceeds int64");
      ++pos_;
    }
    return value;
  }

  std::string_view text_;
  const Failure& fail_;
  std::size_t pos_ = 0;
};

/// The dtype and byte order a descr names.
void read_descr(std::string_view descr, NpyHeader& header, const Failure& fail) {
  if (descr.size() == 3) {
    for (const DescrEntry& entry : kDescrs) {
      if (descr.substr(1) != entry.code) continue;
      const char order = descr[0];
      const bool one_byte = dtype_size(entry.dtype) == 1;
      // '|' (not applicable) and '=' (native) are what numpy writes for one-byte types.
      if (order == '<' || order == '>' || (one_byte && (order == '|' || order == '='))) {
        header.dtype = entry.dtype;
        header.big_endian = order == '>' && !one_byte;
        return;
      }
    }
  }
  fail("header field 'descr': '", descr,
       "' is not a supported dtype (expected one of <f8 <f4 <f2 <i8 <i4 <i2 |i1 <u8 <u4 <u2 "
       "|u1 |b1, or '>' for big-endian)");
}

}  // namespace

NpyHeader parse_npy_header(std::string_view text, const Failure& fail) {
  DictParser parser(text, fail);
  parser.expect('{', "to open the header dict");
  NpyHeader header;
  bool seen_descr = false, seen_fortran = false, seen_shape = false;
  bool comma = true;
  while (!parser.eat('}')) {
    if (!comma) fail("header: expected ',' or '}' at byte ", parser.pos(), parser.found());
    const std::string_view key = parser.string("key");
    parser.expect(':', "after a key");
    bool* seen = nullptr;
    if (key == "descr") {
      seen = &seen_descr;
      if (!seen_descr) read_descr(parser.string("descr"), header, fail);
    } else if (key == "fortran_order") {
      seen = &seen_fortran;
      if (!seen_fortran) header.fortran_order = parser.boolean();
    } else if (key == "shape") {
      seen = &seen_shape;
      if (!seen_shape) header.shape = parser.shape();
    } else {
      fail("header: unexpected key '", key, "' (only 'descr', 'fortran_order' and 'shape')");
    }
    if (*seen) fail("header: key '", key, "' appears twice");
    *seen = true;
    comma = parser.eat(',');
  }
  if (!parser.at_end())
    fail("header: unexpected text after the dict at byte ", parser.pos(), parser.found());
  if (!seen_descr) fail("header: no 'descr' key");
  if (!seen_fortran) fail("header: no 'fortran_order' key");
  if (!seen_shape) fail("header: no 'shape' key");
  return header;
}

std::optional<std::string_view> npy_descr(DType dtype) {
  switch (dtype) {
    case DType::F64:
      return "<f8";
    case DType::F32:
      return "<f4";
    case DType::F16:
      return "<f2";
    case DType::BF16:
      return std::nullopt;  // NumPy has no bfloat16
    case DType::I64:
      return "<i8";
    case DType::I32:
      return "<i4";
    case DType::I16:
      return "<i2";
    case DType::I8:
      return "|i1";
    case DType::U64:
      return "<u8";
    case DType::U32:
      return "<u4";
    case DType::U16:
      return "<u2";
    case DType::U8:
      return "|u1";
    case DType::Bool:
      return "|b1";
  }
  return std::nullopt;
}

}  // namespace ember::record::detail
