// Max pooling along one row of outputs by SIMD (Highway, dispatched at run time): a vector of
// neighbouring outputs at a time where the windows are 1 or 2 apart along the row, one output at
// a time otherwise. Positions are
// visited in ndarray's order, so the result is ndarray's: the first maximum, a NaN replacing any
// value and a later NaN an earlier one.
#pragma once

#include <cstdint>

namespace ember::flex::simd {

/// The windows of one row of outputs: output o's window reads, for each row offset rows[r]
/// (r < row_count, in order), the taps rows[r] + first + o * stride + j * step (j < taps, in
/// order) of its plane, whose rows are width long.
struct MaxRow {
  const int64_t* rows;
  int64_t row_count;
  int64_t first;  ///< output 0's first tap along the row (negative in the left padding)
  int64_t taps;
  int64_t step;
  int64_t stride;
  int64_t width;
};

/// values[o] and positions[o] (its offset in plane) for the outputs o in [begin, end), whose
/// taps must all lie inside the row: in vectors where their loads stay inside the row, the rest
/// one at a time. Positions must fit the lane type (int32 for float: plane < 2^31 elements).
void max_row(const float* plane, const MaxRow& w, int64_t begin, int64_t end, float* values,
             int32_t* positions);
void max_row(const float* plane, const MaxRow& w, int64_t begin, int64_t end, float* values,
             int64_t* positions);
void max_row(const double* plane, const MaxRow& w, int64_t begin, int64_t end, double* values,
             int32_t* positions);
void max_row(const double* plane, const MaxRow& w, int64_t begin, int64_t end, double* values,
             int64_t* positions);

}  // namespace ember::flex::simd
