#include "ember/scalar.h"

#include "core/number_format.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Float:
      return os << core::shortest_decimal(s.f);
    case Scalar::Kind::Int:
      return os << s.i;
    case Scalar::Kind::Bool:
      return os << (s.i != 0 ? "true" : "false");
  }
  return os << "<invalid Scalar kind>";
}

}  // namespace ember
