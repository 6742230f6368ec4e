// croq/device/tile_copy.h: the cooperative tile copies that `dma.copy`
// lowers to (spec 12, 21.4).
//
//   copy_tile<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1,
//                                 src, ss0, ss1, sv0, sv1, rank)
//
// copies an R x C tile from `src` to `dst`, element (r, c) living at
// `p[r * s0 + c * s1]` on each side. Only the first dv0 x dv1 elements of the
// destination are written (a store to a partial tile at a tensor edge); of
// the source only the first sv0 x sv1 are read, the rest of the destination
// is zero-filled when ZFILL (copies into shared or local memory) and left
// alone otherwise. NT threads cooperate; `rank` is this thread's index among
// them. When rows are contiguous and 16-byte aligned on both sides the copy
// moves 16-byte vectors (with per-vector tail handling), otherwise single
// elements.
//
// cp_async_tile has the same interface for global -> shared copies and
// issues `cp.async` 16-byte copies that zero-fill the invalid bytes; tiles
// that are not 16-byte aligned fall back to ordinary loads and stores
// (complete once the thread reaches the wait and the barrier after it).
#pragma once

#include <cstdint>

#include "croq/device/arch.h"
#include "croq/device/cp_async.h"
#include "croq/device/tile_copy_core.h"
#include "croq/types.h"

namespace croq {

// The element logic (which thread moves what, edges, zero fill) is
// croq/device/tile_copy_core.h, shared with the CPU target.
template <typename T, int R, int C, int NT, bool ZFILL>
CROQ_DEVICE void copy_tile(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0,
                           int sv1, int rank) {
  detail::copy_tile_rows<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
}

template <typename T, int R, int C, int NT, bool ZFILL>
CROQ_DEVICE void cp_async_tile(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0,
                               int sv1, int rank) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const bool vectorizable = detail::rows_vectorizable<T, R, C>(dst, ds0, ds1, src, ss0, ss1);
  if (!vectorizable) {
    detail::copy_elements<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
    return;
  }
  constexpr int VPR = C / V > 0 ? C / V : 1;  // as in copy_tile
  if (sv0 >= R && sv1 >= C && dv0 >= R && dv1 >= C) {
    // The whole tile is valid: unrolled 16-byte copies, no per-vector checks.
#pragma unroll
    for (int it = 0; it < (R * VPR + NT - 1) / NT; ++it) {
      const int idx = rank + it * NT;
      if ((R * VPR) % NT != 0 && idx >= R * VPR) break;
      const int r = idx / VPR;
      const int c = (idx % VPR) * V;
      cp_async_cg_16(cvta_shared(dst + r * ds0 + c), src + r * ss0 + c, 16);
    }
    return;
  }
  for (int idx = rank; idx < R * VPR; idx += NT) {
    const int r = idx / VPR;
    const int c = (idx % VPR) * V;
    const int dn = r < dv0 ? detail::clamp_count(dv1 - c, V) : 0;
    if (dn == 0) continue;
    const int sn = r < sv0 ? detail::clamp_count(sv1 - c, V) : 0;
    T* d = dst + r * ds0 + c;
    if (dn == V) {
      // Invalid source bytes are zero-filled by cp.async itself.
      const T* s = sn > 0 ? src + r * ss0 + c : src;
      cp_async_cg_16(cvta_shared(d), s, static_cast<std::uint32_t>(sn * sizeof(T)));
      continue;
    }
    const T* s = src + r * ss0 + c;
    for (int e = 0; e < dn; ++e) d[e] = e < sn ? s[e] : detail::zero_value<T>();
  }
}

// cp.async.wait_group with a count known only at run time: waits until at
// most `pending` groups of this thread are outstanding (counts above 7 wait
// for 7, which is stricter and still correct).
CROQ_DEVICE void cp_async_wait_dynamic(int pending) {
  switch (pending <= 0 ? 0 : pending) {
    case 0: cp_async_wait<0>(); break;
    case 1: cp_async_wait<1>(); break;
    case 2: cp_async_wait<2>(); break;
    case 3: cp_async_wait<3>(); break;
    case 4: cp_async_wait<4>(); break;
    case 5: cp_async_wait<5>(); break;
    case 6: cp_async_wait<6>(); break;
    default: cp_async_wait<7>(); break;
  }
}

}  // namespace croq
