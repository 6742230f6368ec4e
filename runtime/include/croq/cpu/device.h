// croq/cpu/device.h: the croq device helpers that generated kernels call,
// for `--target=cpu`. Same names, arguments and results as croq/device/*.h,
// computed on the host:
//
//   copy_tile, cp_async_tile      cooperative tile copies (tile_copy.h): the same
//                                 element split among threads, tails and zero
//                                 fill; the asynchronous copy completes at once
//   cp_async_commit / wait<N> / wait_all / wait_dynamic
//                                 nothing to wait for
//   croq::mma::                   the m16n8kK atom operations (mma_tile.h,
//                                 mma_sync.h) with the GPU's register layouts
//                                 (the shared croq/device/mma_layout.h):
//                                 each lane holds the same fragment elements as
//                                 on the GPU, ldmatrix is emulated lane by lane,
//                                 and mma<InT> is warp-collective: the lanes meet,
//                                 the last one computes the 16x8 tile D = A * B + C
//                                 from every lane's fragments (products exact, sums
//                                 in f32; an f16 accumulator is rounded to f16 after
//                                 every atom, as on the GPU), and each lane takes
//                                 its part of D back.
//   lane_id, warp_id_in_warpgroup, elect_one_sync, cuda::setreg_inc / dec
//                                 (warp.h)
//   fence_proxy_async_shared      nothing to order (fence.h): there is one
//                                 view of shared memory
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "croq/cpu/launch.h"
#include "croq/device/mma_layout.h"
#include "croq/device/tile_copy_core.h"
#include "croq/scalar.h"
#include "croq/types.h"

namespace croq {
namespace cpu::detail {

inline unsigned linear_thread_index() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

}  // namespace cpu::detail

// ---- tile copies --------------------------------------------------------------

// The element logic of croq/device/tile_copy.h (croq/device/tile_copy_core.h).
// cp_async_tile zero-fills the invalid elements of a vector whatever ZFILL
// says, as cp.async does.
template <typename T, int R, int C, int NT, bool ZFILL>
void copy_tile(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0, int sv1,
               int rank) {
  croq::detail::copy_tile_rows<T, R, C, NT, ZFILL>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
}

template <typename T, int R, int C, int NT, bool ZFILL>
void cp_async_tile(T* dst, int ds0, int ds1, int dv0, int dv1, const T* src, int ss0, int ss1, int sv0, int sv1,
                   int rank) {
  croq::detail::copy_tile_rows<T, R, C, NT, ZFILL, true>(dst, ds0, ds1, dv0, dv1, src, ss0, ss1, sv0, sv1, rank);
}

// The copies above are complete when they return.
inline void cp_async_commit() {}
template <int N>
void cp_async_wait() {}
inline void cp_async_wait_all() {}
inline void cp_async_wait_dynamic(int) {}

// ---- fences (croq/device/fence.h) --------------------------------------------------

// Ordinary stores into shared memory are seen by the (emulated) WGMMA and
// copy engine reads without a proxy fence.
inline void fence_proxy_async_shared() {}

// ---- warp helpers (croq/device/warp.h) ----------------------------------------------

inline std::uint32_t lane_id() { return cpu::detail::linear_thread_index() & 31u; }
inline std::uint32_t warp_id_in_warpgroup() { return (cpu::detail::linear_thread_index() / 32u) % 4u; }
inline bool elect_one_sync() { return lane_id() == 0; }

namespace cuda {
template <int Regs>
void setreg_inc() {}
template <int Regs>
void setreg_dec() {}
inline void setreg_inc(int) {}
inline void setreg_dec(int) {}
}  // namespace cuda

// ---- MMA atoms (croq/device/mma_sync.h, croq/device/mma_tile.h) ----------------------

namespace mma {

inline int lane_id() { return static_cast<int>(cpu::detail::linear_thread_index() & 31u); }

namespace detail {

inline std::uint32_t bits_at(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, static_cast<std::size_t>(bytes));
  return v;
}

// ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 as lane `lane` sees it:
// row i of matrix q starts at row_of(8 * q + i), the address lane 8q + i
// passes on the GPU (16 bytes: 8 16-bit or 16 8-bit elements). Without
// .trans lane l receives bytes 4(l%4) .. 4(l%4)+3 of row l/4 of each matrix;
// with .trans (16-bit only), rows 2(l%4) and 2(l%4)+1 of column l/4.
template <int N, bool Trans, typename RowOf>
void ldmatrix(std::uint32_t* r, int lane, RowOf row_of) {
  const int g = lane / 4, t = lane % 4;
  for (int q = 0; q < N; ++q) {
    if constexpr (!Trans) {
      r[q] = bits_at(reinterpret_cast<const unsigned char*>(row_of(8 * q + g)) + 4 * t, 4);
    } else {
      const auto lo = bits_at(reinterpret_cast<const unsigned char*>(row_of(8 * q + 2 * t) + g), 2);
      const auto hi = bits_at(reinterpret_cast<const unsigned char*>(row_of(8 * q + 2 * t + 1) + g), 2);
      r[q] = lo | (hi << 16);
    }
  }
}

// Elements in one 16-byte row chunk.
template <typename T>
inline constexpr int chunk_elements_v = 16 / static_cast<int>(sizeof(T));

}  // namespace detail

// ---- ldmatrix loads: the lane addresses of croq/device/mma_tile.h ----

template <bool Trans, typename T>
void load_a_ldsm(frag_a& a, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  detail::ldmatrix<4, Trans>(a.r, lane_id(), [&](int lane) {
    const int q = lane >> 3, r = lane & 7;
    return !Trans ? p + ((q & 1) * 8 + r) * ld + (q >> 1) * detail::chunk_elements_v<T>
                  : p + ((q >> 1) * 8 + r) * ld + (q & 1) * 8;
  });
}

template <bool Trans, typename T>
void load_b_ldsm(frag_b& b, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  detail::ldmatrix<2, Trans>(b.r, lane_id(), [&](int lane) {
    lane &= 15;
    return !Trans ? p + (lane & 7) * ld + (lane >> 3) * detail::chunk_elements_v<T> : p + lane * ld;
  });
}

template <bool Trans, typename T>
void load_b2_ldsm(frag_b& b0, frag_b& b1, const T* p, int ld) {
  static_assert(!Trans || sizeof(T) == 2, "ldmatrix transposes 16-bit operands only");
  std::uint32_t x[4];
  detail::ldmatrix<4, Trans>(x, lane_id(), [&](int lane) {
    const int q = lane >> 3, r = lane & 7;
    return !Trans ? p + ((q >> 1) * 8 + r) * ld + (q & 1) * detail::chunk_elements_v<T>
                  : p + ((q & 1) * 8 + r) * ld + (q >> 1) * 8;
  });
  b0.r[0] = x[0];
  b0.r[1] = x[1];
  b1.r[0] = x[2];
  b1.r[1] = x[3];
}

// ---- element loads (any memory, with bounds; croq/device/mma_layout.h) ----
template <typename T, int M, int KB>
void load_a(frag_a_t<M, KB>& a, const T* p, int s0, int s1, int v0, int v1) {
  load_a_lane(a, lane_id(), p, s0, s1, v0, v1);
}

template <typename T, int M, int KB>
void load_b(frag_b_t<M, KB>& b, const T* p, int s0, int s1, int v0, int v1) {
  load_b_lane(b, lane_id(), p, s0, s1, v0, v1);
}

template <typename AccT, int E, typename T>
void load_c(frag_c<AccT, E>& c, const T* p, int s0, int s1, int v0, int v1) {
  load_c_lane(c, lane_id(), p, s0, s1, v0, v1);
}

template <typename InT, int KB>
void load_e(std::uint32_t& e, const std::uint32_t* p, int s0, int s1, int v0, int v1) {
  e = load_e_lane<static_cast<int>(sizeof(InT)), KB>(lane_id(), p, s0, s1, v0, v1);
}

// ---- stores ----
template <typename AccT, int E, typename OutT>
void store_c(const frag_c<AccT, E>& c, OutT* p, int s0, int s1, int v0, int v1) {
  const int lane = lane_id();
  for (int e = 0; e < E; ++e) {
    const int i = c_row<AccT, E>(lane, e), j = c_col<AccT, E>(lane, e);
    if (i < v0 && j < v1) p[i * s0 + j * s1] = cvt<OutT>(acc_value(c, e));
  }
}

// ---- mma.sync ----

namespace detail {

// One lane's operands, as it hands them to the warp.
template <typename AccT, int E, int M, int KB>
struct MmaLane {
  frag_a_t<M, KB> a;
  frag_b_t<M, KB> b;
  frag_c<AccT, E> c;
};

// Element x (0 .. 4 / sizeof(InT) - 1, lowest bits first) of a register of
// operands; `f16_table` is cpu::detail::half_table(). tf32 operands (InT
// float) are the register's bits, already rounded by the load.
template <typename InT>
double operand_value(std::uint32_t reg, int x, const float* f16_table) {
  if constexpr (sizeof(InT) == 4) {
    float v;
    std::memcpy(&v, &reg, 4);
    return v;
  } else if constexpr (sizeof(InT) == 1) {
    InT v;
    const auto byte = static_cast<unsigned char>(reg >> (8 * x));
    std::memcpy(&v, &byte, 1);
    return static_cast<double>(to_f32(v));
  } else {
    const auto bits = static_cast<std::uint16_t>(reg >> (16 * x));
    if constexpr (std::is_same_v<InT, f16>)
      return f16_table[bits];
    else
      return cpu::detail::bf16_bits_to_float(bits);
  }
}

// The operands `lane` holds, placed at their coordinates
// (croq/device/mma_layout.h): A [Rows][K], B [K][8], C [Rows][8].
template <typename InT, int M, int KB, int Rows, int K>
void gather_a(const frag_a_t<M, KB>& a, int lane, double (&A)[Rows][K], const float* table) {
  constexpr int Bytes = static_cast<int>(sizeof(InT)), P = 4 / Bytes;
  for (int e = 0; e < atom_shape<M, KB>::a_regs * P; ++e)
    A[a_row<Bytes, M, KB>(lane, e)][a_col<Bytes, M, KB>(lane, e)] = operand_value<InT>(a.r[e / P], e % P, table);
}
template <typename InT, int M, int KB, int K>
void gather_b(const frag_b_t<M, KB>& b, int lane, double (&B)[K][8], const float* table) {
  constexpr int Bytes = static_cast<int>(sizeof(InT)), P = 4 / Bytes;
  for (int e = 0; e < atom_shape<M, KB>::b_regs * P; ++e)
    B[b_row<Bytes, M, KB>(lane, e)][b_col<M, KB>(lane, e)] = operand_value<InT>(b.r[e / P], e % P, table);
}
template <typename AccT, int E, int Rows>
void gather_c(const frag_c<AccT, E>& c, int lane, double (&C)[Rows][8]) {
  for (int e = 0; e < E; ++e) C[c_row<AccT, E>(lane, e)][c_col<AccT, E>(lane, e)] = acc_value(c, e);
}

// D = A * B + C, scattered to the accumulators of the lanes in `lanes` in
// the accumulator layout. Products are exact; floating sums are f32 in k
// order, integer sums exact (s32 wraps as on the GPU).
template <typename AccT, int E, int Rows, int K>
void multiply_scatter(const double (&A)[Rows][K], const double (&B)[K][8], const double (&C)[Rows][8],
                      const int* lanes, int count, unsigned char (*out)[cpu::detail::kLaneBytes]) {
  double D[Rows][8];
  for (int m = 0; m < Rows; ++m)
    for (int n = 0; n < 8; ++n) {
      if constexpr (std::is_same_v<AccT, s32>) {
        std::int64_t s = static_cast<std::int64_t>(C[m][n]);
        for (int k = 0; k < K; ++k) s += static_cast<std::int64_t>(A[m][k]) * static_cast<std::int64_t>(B[k][n]);
        D[m][n] = static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(s)));
      } else {
        float s = static_cast<float>(C[m][n]);
        for (int k = 0; k < K; ++k) s += static_cast<float>(A[m][k] * B[k][n]);
        D[m][n] = s;
      }
    }
  for (int l = 0; l < count; ++l) {
    const int lane = lanes[l];
    frag_c<AccT, E> d;
    for (int e = 0; e < E; ++e) {
      const double x = D[c_row<AccT, E>(lane, e)][c_col<AccT, E>(lane, e)];
      if constexpr (std::is_same_v<AccT, s32>)
        set_acc_value(d, e, static_cast<s32>(x));
      else
        set_acc_value(d, e, static_cast<float>(x));
    }
    std::memcpy(out[lane], &d, sizeof(d));
  }
}

// D = A * B + C of the lanes in `lanes` (the whole warp, or one quad pair of
// m8n8k4): gathers A (M x K), B (K x 8) and C (M x 8) from their fragments
// and multiplies.
template <typename InT, typename AccT, int E, int M, int KB>
void mma_lanes(const unsigned char (*in)[cpu::detail::kLaneBytes], unsigned char (*out)[cpu::detail::kLaneBytes],
               const int* lanes, int count) {
  constexpr int K = KB / static_cast<int>(sizeof(InT)), Rows = atom_shape<M, KB>::quad_pair ? 8 : M;
  const float* table = cpu::detail::half_table();
  double A[Rows][K], B[K][8], C[Rows][8];
  for (int l = 0; l < count; ++l) {
    MmaLane<AccT, E, M, KB> v;
    std::memcpy(&v, in[lanes[l]], sizeof(v));
    gather_a<InT>(v.a, lanes[l], A, table);
    gather_b<InT>(v.b, lanes[l], B, table);
    gather_c(v.c, lanes[l], C);
  }
  multiply_scatter<AccT, E>(A, B, C, lanes, count, out);
}

template <typename InT, typename AccT, int E, int M, int KB>
void mma_warp(const unsigned char (*in)[cpu::detail::kLaneBytes], unsigned char (*out)[cpu::detail::kLaneBytes]) {
  if constexpr (atom_shape<M, KB>::quad_pair) {
    for (int q = 0; q < 4; ++q) {
      const int lanes[8] = {4 * q, 4 * q + 1, 4 * q + 2, 4 * q + 3, 4 * q + 16, 4 * q + 17, 4 * q + 18, 4 * q + 19};
      mma_lanes<InT, AccT, E, M, KB>(in, out, lanes, 8);
    }
  } else {
    int lanes[32];
    for (int l = 0; l < 32; ++l) lanes[l] = l;
    mma_lanes<InT, AccT, E, M, KB>(in, out, lanes, 32);
  }
}

// Stops the program unless the running thread's warp has all 32 lanes (a
// warp-collective MMA needs them): `what` names the operation.
inline cpu::detail::BlockRunner* require_full_warp(const char* what, const char* file, int line) {
  cpu::detail::BlockRunner* r = cpu::detail::active_runner;
  if (!r) return nullptr;
  const cpu::detail::Warp& w = r->current_warp();
  if (w.present != ~0u) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "croq cpu runtime: %s (%s:%d) in kernel `%s` needs a full warp of 32 threads, but warp %u of the "
                 "block has only %d\n",
                 what, file, line, r->launch().kernel, r->current_warp_index(), __builtin_popcount(w.present));
    std::_Exit(EXIT_FAILURE);
  }
  return r;
}

// A warp-collective step: every lane of a full warp puts `in` into the
// warp's scratch, `combine(warp, slot)` turns the 32 inputs into 32 outputs
// once all have arrived, and each lane takes its `out`. False outside a
// launch (nothing to exchange with).
template <typename In, typename Out, typename F>
bool exchange_in_warp(const char* what, const char* file, int line, const In& in, Out& out, F&& combine) {
  static_assert(sizeof(In) <= cpu::detail::kLaneBytes && sizeof(Out) <= cpu::detail::kLaneBytes,
                "lane values fit the warp scratch");
  cpu::detail::BlockRunner* r = require_full_warp(what, file, line);
  if (!r) return false;
  cpu::detail::Warp& w = r->current_warp();
  const unsigned lane = r->current_lane();
  const unsigned slot = w.generation & 1;
  std::memcpy(w.in[slot][lane], &in, sizeof(in));
  r->warp_collective({what, file, line}, ~0u, combine);
  std::memcpy(&out, w.out[slot][lane], sizeof(out));
  return true;
}

// One lane's operands of a sparse atom.
template <typename AccT, int KB>
struct MmaSpLane {
  frag_a_t<16, KB / 2> a;
  frag_b_t<16, KB> b;
  frag_c<AccT, 4> c;
  std::uint32_t e;
};

// D = A * B + C of a 2:4 sparse atom over the warp: the packed A (16 x K/2)
// and the metadata nibbles of the lanes the instruction reads
// (croq/device/mma_layout.h, sp_meta_nibble) give the dense A.
template <typename InT, typename AccT, int KB>
void mma_sp_warp(const unsigned char (*in)[cpu::detail::kLaneBytes], unsigned char (*out)[cpu::detail::kLaneBytes]) {
  constexpr int Bytes = static_cast<int>(sizeof(InT)), K = KB / Bytes;
  const float* table = cpu::detail::half_table();
  double packed[16][K / 2], A[16][K] = {}, B[K][8], C[16][8];
  int nibble[16][K / 4];
  int lanes[32];
  for (int lane = 0; lane < 32; ++lane) {
    lanes[lane] = lane;
    MmaSpLane<AccT, KB> v;
    std::memcpy(&v, in[lane], sizeof(v));
    gather_a<InT>(v.a, lane, packed, table);
    gather_b<InT>(v.b, lane, B, table);
    gather_c(v.c, lane, C);
    for (int n = 0; n < 8; ++n) {
      const sp_nibble at = sp_meta_nibble<Bytes, KB>(lane, n);
      if (at.read) nibble[at.row][at.group] = static_cast<int>((v.e >> (4 * n)) & 0xfu);
    }
  }
  for (int m = 0; m < 16; ++m)
    for (int q = 0; q < K / 4; ++q) {
      A[m][4 * q + (nibble[m][q] & 3)] += packed[m][2 * q];
      A[m][4 * q + ((nibble[m][q] >> 2) & 3)] += packed[m][2 * q + 1];
    }
  multiply_scatter<AccT, 4>(A, B, C, lanes, 32, out);
}

}  // namespace detail

// acc += a * b for a 2:4 sparse A with metadata `e` over the warp (every
// lane must call it), as croq/device/mma_sync.h's mma_sp.
template <typename InT, typename AccT, int E, int KB>
void mma_sp(frag_c<AccT, E>& acc, const frag_a_t<16, KB / 2>& a, const frag_b_t<16, KB>& b, std::uint32_t e,
            const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(has_sparse_instruction_v<InT, AccT, KB>, "no mma.sp.sync takes these operand and accumulator types");
  static_assert(E == 4, "the accumulator fits the m16n8 atom");
  const detail::MmaSpLane<AccT, KB> mine{a, b, acc, e};
  detail::exchange_in_warp("croq::mma::mma_sp (mma.sp.sync)", file, line, mine, acc,
                           [](cpu::detail::Warp& warp, unsigned s) {
                             detail::mma_sp_warp<InT, AccT, KB>(warp.in[s], warp.out[s]);
                           });
}

// acc += a * b over the warp (every one of its 32 lanes must call it), with
// the instruction chosen as croq/device/mma_sync.h chooses it.
template <typename InT, typename AccT, int E, int M, int KB>
void mma(frag_c<AccT, E>& acc, const frag_a_t<M, KB>& a, const frag_b_t<M, KB>& b,
         const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(has_instruction_v<InT, AccT, M, KB>, "no mma.sync takes these operand and accumulator types");
  static_assert(E == atom_shape<M, KB>::c_elems, "the accumulator fits the atom");
  using Lane = detail::MmaLane<AccT, E, M, KB>;
  const Lane mine{a, b, acc};
  detail::exchange_in_warp("croq::mma::mma (mma.sync)", file, line, mine, acc,
                           [](cpu::detail::Warp& warp, unsigned s) {
                             detail::mma_warp<InT, AccT, E, M, KB>(warp.in[s], warp.out[s]);
                           });
}

}  // namespace mma
}  // namespace croq

#include "croq/cpu/event.h"
