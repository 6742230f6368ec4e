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
#include "croq/types.h"

namespace croq {
namespace detail {

template <typename T>
CROQ_DEVICE bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

template <typename T>
CROQ_DEVICE T zero_value() {
  return utils::from_f32<T>(0.0f);
}

// max(0, min(v, hi)), the number of elements of a vector at a tile's edge.
// Written in PTX on the device: ptxas of CUDA 13.0 turns the C++ form into
// VIMNMX.RELU and tests the result's `== hi` with that instruction's
// predicate output, which also held for v = 0, so a thread past the edge of
// a tensor took the whole-vector path and read 16 bytes past its end (caught
// by compute-sanitizer memcheck in examples/events/producer_consumer.co).
CROQ_DEVICE int clamp_count(int v, int hi) {
#if defined(__CUDA_ARCH__)
  int r;
  asm("max.s32 %0, %1, 0;\n" : "=r"(r) : "r"(v));
  asm("min.s32 %0, %0, %1;\n" : "+r"(r) : "r"(hi));
  return r;
#else
  return v < 0 ? 0 : (v > hi ? hi : v);
#endif
}

// Can an R x C tile move as 16-byte vectors: whole vectors per row,
// contiguous rows whose starts stay 16-byte aligned on both sides?
template <typename T, int R, int C>
CROQ_DEVICE bool rows_vectorizable(const T* dst, int ds0, int ds1, const T* src, int ss0, int ss1) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  return V > 1 && C % V == 0 && ds1 == 1 && ss1 == 1 && (R == 1 || (ds0 % V == 0 && ss0 % V == 0)) &&
         aligned16(dst) && aligned16(src);
}

// The scalar path: every element of the tile, NT threads round robin.
template <typename T, int R, int C, int NT, bool ZFILL>
CROQ_DEVICE void copy_elements(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0,
                               int sv1, int rank) {
  for (int idx = rank; idx < R * C; idx += NT) {
    const int r = idx / C;
    const int c = idx % C;
    if (r >= dv0 || c >= dv1) continue;
    if (r < sv0 && c < sv1)
      dst[r * ds0 + c * ds1] = src[r * ss0 + c * ss1];
    else if (ZFILL)
      dst[r * ds0 + c * ds1] = zero_value<T>();
  }
}

}  // namespace detail

template <typename T, int R, int C, int NT, bool ZFILL>
CROQ_DEVICE void copy_tile(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0,
                           int sv1, int rank) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const bool vectorizable = detail::rows_vectorizable<T, R, C>(dst, ds0, ds1, src, ss0, ss1);
  if (!vectorizable) {
    detail::copy_elements<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
    return;
  }
  // Vectors per row; the vector path runs only when C % V == 0, but it is
  // instantiated for every C (narrower rows must not divide by zero).
  constexpr int VPR = C / V > 0 ? C / V : 1;
  if (sv0 >= R && sv1 >= C && dv0 >= R && dv1 >= C) {
    // The whole tile is valid: 16-byte vectors, unrolled, no per-vector checks.
#pragma unroll
    for (int it = 0; it < (R * VPR + NT - 1) / NT; ++it) {
      const int idx = rank + it * NT;
      if ((R * VPR) % NT != 0 && idx >= R * VPR) break;
      const int r = idx / VPR;
      const int c = (idx % VPR) * V;
      *reinterpret_cast<uint4*>(dst + r * ds0 + c) = *reinterpret_cast<const uint4*>(src + r * ss0 + c);
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
    const T* s = src + r * ss0 + c;
    if (dn == V && sn == V) {
      *reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(s);
      continue;
    }
    for (int e = 0; e < dn; ++e) {
      if (e < sn)
        d[e] = s[e];
      else if (ZFILL)
        d[e] = detail::zero_value<T>();
    }
  }
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
