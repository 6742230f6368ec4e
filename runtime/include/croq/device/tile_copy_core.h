// croq/device/tile_copy_core.h: the element logic of the cooperative tile
// copies, one definition for the device (croq/device/tile_copy.h,
// croq/device/wgmma_tile.h) and the CPU target (croq/cpu/device.h,
// croq/cpu/wgmma.h): which of the NT threads moves which element or 16-byte
// vector of an R x C tile, the edges of a partial tile, the zero fill, and
// the swizzled destination of a warpgroup MMA operand. Host and device
// code: a 16-byte move is a vector load and store on the device and a
// memcpy on the host. The copies that need an instruction of their own
// (cp.async, TMA) stay in the device headers.
#pragma once

#include <cstdint>
#include <cstring>

#include "croq/config.h"
#include "croq/device/wgmma_layout.h"
#include "croq/types.h"

namespace croq {
namespace detail {

template <typename T>
CROQ_HOST_DEVICE bool aligned16(const T* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

template <typename T>
CROQ_HOST_DEVICE T zero_value() {
  return utils::from_f32<T>(0.0f);
}

// max(0, min(v, hi)), the number of elements of a vector at a tile's edge.
// Written in PTX on the device: ptxas of CUDA 13.0 turns the C++ form into
// VIMNMX.RELU and tests the result's `== hi` with that instruction's
// predicate output, which also held for v = 0, so a thread past the edge of
// a tensor took the whole-vector path and read 16 bytes past its end (caught
// by compute-sanitizer memcheck in examples/events/producer_consumer.co).
CROQ_HOST_DEVICE int clamp_count(int v, int hi) {
#if defined(__CUDA_ARCH__)
  int r;
  asm("max.s32 %0, %1, 0;\n" : "=r"(r) : "r"(v));
  asm("min.s32 %0, %0, %1;\n" : "+r"(r) : "r"(hi));
  return r;
#else
  return v < 0 ? 0 : (v > hi ? hi : v);
#endif
}

// Moves 16 bytes between 16-byte aligned addresses.
template <typename T>
CROQ_HOST_DEVICE void copy16(T* d, const T* s) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(s);
#else
  std::memcpy(d, s, 16);
#endif
}

// Can an R x C tile move as 16-byte vectors: whole vectors per row,
// contiguous rows whose starts stay 16-byte aligned on both sides?
template <typename T, int R, int C>
CROQ_HOST_DEVICE bool rows_vectorizable(const T* dst, int ds0, int ds1, const T* src, int ss0, int ss1) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  return V > 1 && C % V == 0 && ds1 == 1 && ss1 == 1 && (R == 1 || (ds0 % V == 0 && ss0 % V == 0)) &&
         aligned16(dst) && aligned16(src);
}

// The scalar path: every element of the tile, NT threads round robin.
template <typename T, int R, int C, int NT, bool ZFILL>
CROQ_HOST_DEVICE void copy_elements(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1,
                                    int sv0, int sv1, int rank) {
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

// copy_tile (croq/device/tile_copy.h): 16-byte vectors when the rows allow
// them, elements otherwise. `VectorZeroFill`: the vector path zero-fills the
// invalid elements of a vector (the CPU target's cp.async, which the GPU's
// does whatever ZFILL says); otherwise it follows ZFILL.
template <typename T, int R, int C, int NT, bool ZFILL, bool VectorZeroFill = ZFILL>
CROQ_HOST_DEVICE void copy_tile_rows(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1,
                                     int sv0, int sv1, int rank) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  if (!rows_vectorizable<T, R, C>(dst, ds0, ds1, src, ss0, ss1)) {
    copy_elements<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
    return;
  }
  // Vectors per row; the vector path runs only when C % V == 0, but it is
  // instantiated for every C (narrower rows must not divide by zero).
  constexpr int VPR = C / V > 0 ? C / V : 1;
  if (sv0 >= R && sv1 >= C && dv0 >= R && dv1 >= C) {
    // The whole tile is valid: 16-byte vectors, unrolled on the device, no
    // per-vector checks.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int it = 0; it < (R * VPR + NT - 1) / NT; ++it) {
      const int idx = rank + it * NT;
      if ((R * VPR) % NT != 0 && idx >= R * VPR) break;
      const int r = idx / VPR;
      const int c = (idx % VPR) * V;
      copy16(dst + r * ds0 + c, src + r * ss0 + c);
    }
    return;
  }
  for (int idx = rank; idx < R * VPR; idx += NT) {
    const int r = idx / VPR;
    const int c = (idx % VPR) * V;
    const int dn = r < dv0 ? clamp_count(dv1 - c, V) : 0;
    if (dn == 0) continue;
    const int sn = r < sv0 ? clamp_count(sv1 - c, V) : 0;
    T* d = dst + r * ds0 + c;
    const T* s = src + r * ss0 + c;
    if (dn == V && sn == V) {
      copy16(d, s);
      continue;
    }
    for (int e = 0; e < dn; ++e) {
      if (e < sn)
        d[e] = s[e];
      else if (VectorZeroFill)
        d[e] = zero_value<T>();
    }
  }
}

}  // namespace detail

namespace wgmma {

// Whether an R x C tile at column c0 of `src` (strides ss0, ss1) moves as
// 16-byte vectors: whole vectors per row, contiguous rows, every vector
// aligned. copy_tile_swz and the device's cp_async_tile_swz decide alike.
template <typename T, int R, int C>
CROQ_HOST_DEVICE bool swz_tile_vectorizable(int c0, const T* src, int ss0, int ss1) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  return C % V == 0 && c0 % V == 0 && ss1 == 1 && (R == 1 || ss0 % V == 0) && croq::detail::aligned16(src);
}

// An R x C tile from `src` (element (r, c) at src[r * ss0 + c * ss1], the
// first sv0 x sv1 valid, the rest zero) into the swizzled tile `dst` of
// `rows` rows at logical origin (r0, c0); NT threads cooperate, `rank` is
// this thread's. 16-byte vectors go to the threads in turn when rows and
// source allow it, single elements otherwise.
template <typename T, int R, int C, int NT, int W>
CROQ_HOST_DEVICE void copy_tile_swz(T* dst, int rows, int r0, int c0, const T* src, int ss0, int ss1, int sv0,
                                    int sv1, int rank) {
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  if (swz_tile_vectorizable<T, R, C>(c0, src, ss0, ss1)) {
    constexpr int VPR = C / V;
    for (int idx = rank; idx < R * VPR; idx += NT) {
      const int r = idx / VPR, c = (idx % VPR) * V;
      T* d = dst + swz_index<W, T>(r0 + r, c0 + c, rows);
      const int sn = r < sv0 ? croq::detail::clamp_count(sv1 - c, V) : 0;
      const T* s = src + r * ss0 + c;
      if (sn == V) {
        croq::detail::copy16(d, s);
      } else {
        for (int e = 0; e < V; ++e) d[e] = e < sn ? s[e] : croq::detail::zero_value<T>();
      }
    }
    return;
  }
  for (int idx = rank; idx < R * C; idx += NT) {
    const int r = idx / C, c = idx % C;
    dst[swz_index<W, T>(r0 + r, c0 + c, rows)] =
        (r < sv0 && c < sv1) ? src[r * ss0 + c * ss1] : croq::detail::zero_value<T>();
  }
}

}  // namespace wgmma
}  // namespace croq
