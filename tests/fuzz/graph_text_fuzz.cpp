// Fuzzes the graph text parser (src/graph/text_reader.cpp: lines, numbers, names, references,
// constants' hex, each op's Cap'n Proto text and its shape rule): bad input is refused with an
// ember::Error, and a graph accepted writes a text that reads back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "graph/text_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto graph =
      ember::fuzz::parsed_or_refused([&] { return ember::detail::graph_from_text(text); });
  if (!graph) return 0;
  const std::string written = ember::detail::graph_to_text(*graph);
  const std::string again = ember::detail::graph_to_text(ember::detail::graph_from_text(written));
  ember::fuzz::require(again == written, "a graph's text reads back to the same text");
  return 0;
}
