// Element conversion between dtypes over any view, as detail::convert_element defines it (the
// Cast op's rule), on the thread pool.
#pragma once

#include "backends/flex/view.h"

namespace ember::flex {

/// A new contiguous tensor holding x's elements converted to dtype.
View converted(const View& x, DType dtype);

}  // namespace ember::flex
