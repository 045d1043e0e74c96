// Importer of ONNX's Einsum, written with ember's permute, reshape, sum and matmul: each
// operand's repeated labels become its diagonal, labels no other operand and the output need
// are summed out, and the operands are multiplied left to right, each pair as one batched
// matmul (shared labels still needed are its batch, shared ones no longer needed its inner
// dim), as NumPy's einsum does without its path optimizer.
#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>

#include "graph/onnx/onnx_import_util.h"

namespace ember::detail {
namespace {

/// A label: a letter's code, or kEllipsis + k for the k-th dim an ellipsis stands for.
using Label = int;
constexpr Label kEllipsis = 256;

/// An operand being reduced: its tensor and one label per dim (none: shape [1], a scalar).
struct Term {
  TensorHandle tensor;
  std::vector<Label> labels;
};

/// The labels of one side of the equation for a value of rank `rank` (-1: the output, whose
/// ellipsis stands for `ellipsis` dims).
std::vector<Label> parse_term(const OnnxNode& node, const std::string& text, int64_t rank,
                              int64_t ellipsis) {
  std::vector<Label> labels;
  const std::size_t dots = text.find("...");
  const std::string letters =
      dots == std::string::npos ? text : text.substr(0, dots) + text.substr(dots + 3);
  for (char ch : letters) {
    if (!std::isalpha(static_cast<unsigned char>(ch)))
      node.fail("equation term '", text, "' has the character '", std::string(1, ch), "'");
  }
  const auto named = static_cast<int64_t>(letters.size());
  const int64_t covered = rank < 0 ? ellipsis : rank - named;
  if (covered < 0 || (dots == std::string::npos && covered != 0))
    node.fail("equation term '", text, "' does not fit an operand of rank ", rank);
  for (std::size_t i = 0; i < text.size();) {
    if (i == dots) {
      // Right-aligned: an operand with fewer ellipsis dims broadcasts against the last ones.
      for (int64_t k = ellipsis - covered; k < ellipsis; ++k)
        labels.push_back(kEllipsis + static_cast<Label>(k));
      i += 3;
    } else {
      labels.push_back(static_cast<unsigned char>(text[i++]));
    }
  }
  return labels;
}

/// term with dims a < b (one label) replaced by their diagonal, as its last dim.
void take_diagonal(Term& term, std::size_t a, std::size_t b) {
  const int64_t n = term.tensor.shape().dims()[a];
  std::vector<int64_t> order;
  std::vector<Label> labels;
  for (std::size_t d = 0; d < term.labels.size(); ++d) {
    if (d == a || d == b) continue;
    order.push_back(static_cast<int64_t>(d));
    labels.push_back(term.labels[d]);
  }
  order.push_back(static_cast<int64_t>(a));
  order.push_back(static_cast<int64_t>(b));
  labels.push_back(term.labels[a]);
  std::vector<int64_t> dims;
  for (std::size_t k = 0; k + 2 < order.size(); ++k)
    dims.push_back(term.tensor.shape().dims()[static_cast<std::size_t>(order[k])]);
  dims.push_back(n * n);
  const TensorHandle flat = ops::reshape(ops::permute(term.tensor, order), dims);
  // Entry (i, i) of an n x n block is at i (n + 1).
  const TensorHandle diagonal = ops::mul_scalar(
      ops::arange(0, n, 1, TensorCreationOptions(term.tensor.device()).with_dtype(DType::I64)),
      n + 1);
  term.tensor = ops::select(flat, static_cast<int64_t>(dims.size()) - 1, diagonal);
  term.labels = std::move(labels);
}

void take_diagonals(const OnnxNode& node, Term& term) {
  for (std::size_t a = 0; a < term.labels.size(); ++a) {
    for (std::size_t b = a + 1; b < term.labels.size(); ++b) {
      if (term.labels[a] != term.labels[b]) continue;
      if (term.tensor.shape().dims()[a] != term.tensor.shape().dims()[b])
        node.fail("label '", std::string(1, static_cast<char>(term.labels[a])),
                  "' repeats over dims of sizes ", term.tensor.shape().dims()[a], " and ",
                  term.tensor.shape().dims()[b]);
      take_diagonal(term, a, b);
      return take_diagonals(node, term);
    }
  }
}

/// term with every label that keep does not hold summed out.
void sum_unneeded(Term& term, const std::vector<Label>& keep) {
  for (std::size_t d = term.labels.size(); d-- > 0;) {
    if (std::ranges::find(keep, term.labels[d]) != keep.end()) continue;
    term.tensor = ops::sum_dim(term.tensor, static_cast<int64_t>(d));
    if (term.tensor.rank() > 1) term.tensor = ops::squeeze(term.tensor, static_cast<int64_t>(d));
    term.labels.erase(term.labels.begin() + static_cast<std::ptrdiff_t>(d));
  }
}

/// term permuted so its labels are order's, reshaped to the given dims.
TensorHandle arranged(const Term& term, const std::vector<Label>& order,
                      const std::vector<int64_t>& dims) {
  std::vector<int64_t> axes;
  for (Label label : order) {
    axes.push_back(std::ranges::find(term.labels, label) - term.labels.begin());
  }
  const TensorHandle permuted = axes.empty() ? term.tensor : ops::permute(term.tensor, axes);
  return ops::reshape(permuted, dims);
}

int64_t size_of(const Term& term, Label label) {
  const auto at = std::ranges::find(term.labels, label) - term.labels.begin();
  return term.tensor.shape().dims()[static_cast<std::size_t>(at)];
}

int64_t product_of(const Term& term, const std::vector<Label>& labels) {
  int64_t n = 1;
  for (Label label : labels)
    n *= size_of(term, label);
  return n;
}

/// a times b over their shared labels: a batched matmul [batch, left, inner] x
/// [batch, inner, right], labels keep holds staying (as batch, or as left and right).
Term contract(const OnnxNode& node, Term a, Term b, const std::vector<Label>& keep) {
  std::vector<Label> batch, inner, left, right;
  for (Label label : a.labels) {
    const bool shared = std::ranges::find(b.labels, label) != b.labels.end();
    const bool kept = std::ranges::find(keep, label) != keep.end();
    (shared ? (kept ? batch : inner) : left).push_back(label);
  }
  for (Label label : b.labels) {
    if (std::ranges::find(a.labels, label) == a.labels.end()) right.push_back(label);
  }
  for (Label label : inner) {  // an inner dim of size 1 broadcasts against the other's
    const int64_t na = size_of(a, label), nb = size_of(b, label);
    if (na == nb) continue;
    if (na != 1 && nb != 1) node.fail("a label spans dims of sizes ", na, " and ", nb);
    Term& small = na == 1 ? a : b;
    std::vector<int64_t> dims = small.tensor.shape().dims();
    dims[static_cast<std::size_t>(std::ranges::find(small.labels, label) - small.labels.begin())] =
        std::max(na, nb);
    small.tensor = ops::expand(small.tensor, dims);
  }
  std::vector<int64_t> a_dims, b_dims, out_dims;
  for (Label label : batch) {
    a_dims.push_back(size_of(a, label));
    b_dims.push_back(size_of(b, label));
    out_dims.push_back(std::max(a_dims.back(), b_dims.back()));
  }
  const int64_t n_left = product_of(a, left), n_inner = product_of(a, inner),
                n_right = product_of(b, right);
  a_dims.insert(a_dims.end(), {n_left, n_inner});
  b_dims.insert(b_dims.end(), {n_inner, n_right});
  std::vector<Label> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), left.begin(), left.end());
  a_order.insert(a_order.end(), inner.begin(), inner.end());
  b_order.insert(b_order.end(), inner.begin(), inner.end());
  b_order.insert(b_order.end(), right.begin(), right.end());
  const TensorHandle product =
      ops::matmul(arranged(a, a_order, a_dims), arranged(b, b_order, b_dims));
  Term out{product, batch};
  for (Label label : left)
    out_dims.push_back(size_of(a, label));
  for (Label label : right)
    out_dims.push_back(size_of(b, label));
  out.labels.insert(out.labels.end(), left.begin(), left.end());
  out.labels.insert(out.labels.end(), right.begin(), right.end());
  out.tensor = ops::reshape(product, out_dims.empty() ? std::vector<int64_t>{1} : out_dims);
  return out;
}

/// The output's labels when the equation gives none: the ellipsis dims, then the letters used
/// once, in alphabetical order.
std::vector<Label> implicit_output(const std::vector<Term>& terms, int64_t ellipsis) {
  std::vector<Label> out;
  for (int64_t k = 0; k < ellipsis; ++k)
    out.push_back(kEllipsis + static_cast<Label>(k));
  for (Label letter = 0; letter < kEllipsis; ++letter) {
    int64_t uses = 0;
    for (const Term& term : terms)
      uses += std::ranges::count(term.labels, letter);
    if (uses == 1) out.push_back(letter);
  }
  return out;
}

/// The labels of terms after `from`, and the output's: what must stay.
std::vector<Label> needed(const std::vector<Term>& terms, std::size_t from,
                          const std::vector<Label>& output) {
  std::vector<Label> keep = output;
  for (std::size_t k = from; k < terms.size(); ++k)
    keep.insert(keep.end(), terms[k].labels.begin(), terms[k].labels.end());
  return keep;
}

std::vector<OnnxValue> einsum(const OnnxNode& node) {
  std::string equation = node.attr_string("equation", "");
  std::erase_if(equation, [](char ch) { return std::isspace(static_cast<unsigned char>(ch)); });
  const std::size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> texts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    texts.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (texts.size() != node.input_count())
    node.fail("equation '", equation, "' names ", texts.size(), " operands, the node has ",
              node.input_count());
  int64_t ellipsis = 0;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    if (texts[k].find("...") != std::string::npos) {
      const auto letters = static_cast<int64_t>(texts[k].size()) - 3;
      ellipsis = std::max(ellipsis, onnx_rank(node.input(k)) - letters);
    }
  }
  std::vector<Term> terms;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    const OnnxValue& value = node.input(k);
    terms.push_back({value.tensor, parse_term(node, texts[k], onnx_rank(value), ellipsis)});
    take_diagonals(node, terms.back());
  }
  const std::vector<Label> output =
      arrow == std::string::npos ? implicit_output(terms, ellipsis)
                                 : parse_term(node, equation.substr(arrow + 2), -1, ellipsis);
  for (Label label : output) {
    const bool found = std::ranges::any_of(
        terms, [&](const Term& t) { return std::ranges::find(t.labels, label) != t.labels.end(); });
    if (!found) node.fail("equation '", equation, "' outputs a label no operand has");
  }
  Term result = terms[0];
  sum_unneeded(result, needed(terms, 1, output));
  for (std::size_t k = 1; k < terms.size(); ++k) {
    std::vector<Label> keep = needed(terms, k + 1, output);
    keep.insert(keep.end(), result.labels.begin(), result.labels.end());
    sum_unneeded(terms[k], keep);
    result = contract(node, std::move(result), std::move(terms[k]), needed(terms, k + 1, output));
  }
  sum_unneeded(result, output);
  std::vector<int64_t> dims;
  for (Label label : output)
    dims.push_back(size_of(result, label));
  return {reshaped(arranged(result, output, dims.empty() ? std::vector<int64_t>{1} : dims), dims)};
}

}  // namespace

void add_einsum_importers(OnnxImporters& table) {
  table.insert({{"Einsum", einsum}});
}

}  // namespace ember::detail
