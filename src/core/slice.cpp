#include "ember/slice.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, const Slice& s) {
  if (s.start) os << *s.start;
  os << ':';
  if (s.end) os << *s.end;
  if (s.step != 1) os << ':' << s.step;
  return os;
}

}  // namespace ember
