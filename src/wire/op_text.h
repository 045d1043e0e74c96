// An ir op as one line of text: the remote protocol's OpCall (op_codec.h) in Cap'n Proto's text
// form, so that the graph text format (src/graph) writes ops with the same derived encoding the
// wire does, and reads them back through the same checks.
#pragma once

#include <string>
#include <string_view>

#include "ir/ops.h"

namespace ember::wire {

/// op's index and members: "(op = 1, fields = [(int = 0)])". Doubles are written so that they
/// read back to the same bits.
std::string op_to_text(const ir::Op& op);
/// The op text describes. Throws InvalidArgument "[graph] ..." for malformed text (nested deeper
/// than a few levels, or not an OpCall) and decode_op's errors for an op that does not fit.
ir::Op op_from_text(std::string_view text);

}  // namespace ember::wire
