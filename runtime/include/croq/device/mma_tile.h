// croq/device/mma_tile.h: the m16n8kK atom operations that warp-level MMA
// statements lower to: filling accumulators, loading A and B atoms (with
// ldmatrix from shared memory, or element by element from anywhere with
// bounds), and storing accumulator atoms with conversion and bounds.
//
// Atom coordinates follow croq/device/mma_layout.h. Element (i, j) of an atom
// lives at `p[i * s0 + j * s1]`: A atoms are indexed (m, k), B atoms (n, k),
// C atoms (m, n). `v0`, `v1` are how many leading rows and columns are
// valid; elements outside read as zero and are not written.
#pragma once

#include <cstdint>
#include <cstring>

#include "croq/device/arch.h"
#include "croq/device/ldmatrix.h"
#include "croq/device/mma_sync.h"
#include "croq/scalar.h"
#include "croq/types.h"

namespace croq {
namespace mma {

CROQ_DEVICE int lane_id() { return static_cast<int>(threadIdx.x) & 31; }

// ---- ldmatrix loads (shared memory, 16-byte aligned rows) ----
//
// ldmatrix moves 8 x 16-byte matrices, so one lane address per 16-byte row
// chunk serves 16- and 8-bit operands alike: chunk c of a row starts C * c
// elements in, C = 16 / sizeof(T). The transposing forms exist for 16-bit
// operands only.

template <typename T>
inline constexpr int chunk_elements_v = 16 / static_cast<int>(sizeof(T));

// A atom, 16 x K. Trans = false: stored [M][K] (row m at p + m * ld);
// Trans = true: stored [K][M].
template <bool Trans, typename T>
CROQ_DEVICE void load_a_ldsm(frag_a& a, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  const int lane = lane_id();
  const int q = lane >> 3, r = lane & 7;
  if constexpr (!Trans) {
    ldmatrix_x4(a.r, cvta_shared(p + ((q & 1) * 8 + r) * ld + (q >> 1) * chunk_elements_v<T>));
  } else {
    ldmatrix_x4_trans(a.r, cvta_shared(p + ((q >> 1) * 8 + r) * ld + (q & 1) * 8));
  }
}

// B atom, 8 (n) x K. Trans = false: stored [N][K]; true: stored [K][N].
template <bool Trans, typename T>
CROQ_DEVICE void load_b_ldsm(frag_b& b, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  const int lane = lane_id() & 15;
  if constexpr (!Trans) {
    ldmatrix_x2(b.r, cvta_shared(p + (lane & 7) * ld + (lane >> 3) * chunk_elements_v<T>));
  } else {
    ldmatrix_x2_trans(b.r, cvta_shared(p + lane * ld));
  }
}

// Two neighbouring B atoms (n 0..7 and 8..15) with one ldmatrix.x4.
template <bool Trans, typename T>
CROQ_DEVICE void load_b2_ldsm(frag_b& b0, frag_b& b1, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  const int lane = lane_id();
  const int q = lane >> 3, r = lane & 7;
  std::uint32_t x[4];
  if constexpr (!Trans) {
    ldmatrix_x4(x, cvta_shared(p + ((q >> 1) * 8 + r) * ld + (q & 1) * chunk_elements_v<T>));
  } else {
    ldmatrix_x4_trans(x, cvta_shared(p + ((q & 1) * 8 + r) * ld + (q >> 1) * 8));
  }
  b0.r[0] = x[0];
  b0.r[1] = x[1];
  b1.r[0] = x[2];
  b1.r[1] = x[3];
}

// ---- element loads (any memory, with bounds; croq/device/mma_layout.h) ----
template <typename T, int M, int KB>
CROQ_DEVICE void load_a(frag_a_t<M, KB>& a, const T* p, int s0, int s1, int v0, int v1) {
  load_a_lane(a, lane_id(), p, s0, s1, v0, v1);
}

template <typename T, int M, int KB>
CROQ_DEVICE void load_b(frag_b_t<M, KB>& b, const T* p, int s0, int s1, int v0, int v1) {
  load_b_lane(b, lane_id(), p, s0, s1, v0, v1);
}

// The lane's metadata word of a sparse atom (`me = mma.load META;`).
template <typename InT, int KB>
CROQ_DEVICE void load_e(std::uint32_t& e, const std::uint32_t* p, int s0, int s1, int v0, int v1) {
  e = load_e_lane<static_cast<int>(sizeof(InT)), KB>(lane_id(), p, s0, s1, v0, v1);
}

// An accumulator atom read from memory (`acc = mma.load C;`).
template <typename AccT, int E, typename T>
CROQ_DEVICE void load_c(frag_c<AccT, E>& c, const T* p, int s0, int s1, int v0, int v1) {
  load_c_lane(c, lane_id(), p, s0, s1, v0, v1);
}

// ---- stores ----
template <typename AccT, int E, typename OutT>
CROQ_DEVICE void store_c(const frag_c<AccT, E>& c, OutT* p, int s0, int s1, int v0, int v1) {
  const int lane = lane_id();
#pragma unroll
  for (int e = 0; e < E; ++e) {
    const int i = c_row<AccT, E>(lane, e), j = c_col<AccT, E>(lane, e);
    if (i < v0 && j < v1) p[i * s0 + j * s1] = cvt<OutT>(acc_value(c, e));
  }
}

}  // namespace mma
}  // namespace croq
