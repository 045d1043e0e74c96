// The graph text format (ember/graph.h, docs/capture.md): written and parsed here, without the
// Tensor API, so that the fuzz target of the parser links nothing above ir and wire.
#pragma once

#include <string>
#include <string_view>

#include "graph/graph_impl.h"

namespace ember::detail {

/// The header line every graph text starts with; its number changes with the format.
inline constexpr std::string_view kGraphHeader = "ember-graph 1";

/// graph as text (Graph::to_text).
std::string graph_to_text(const GraphImpl& graph);
/// The graph text describes; InvalidArgument "[Graph::from_text] line N: ..." otherwise.
GraphImpl graph_from_text(std::string_view text);
/// Refuses a name the text cannot hold (empty, or other than printable ASCII without '"' and
/// '\'): InvalidArgument "[op] ...".
void check_graph_name(std::string_view name, std::string_view op);

}  // namespace ember::detail
