// croq/device/wgmma.h: warpgroup MMA on sm_90a (`wgmma.mma_async`), its
// shared-memory matrix descriptors and its fences.
//
// A warpgroup is 4 consecutive warps (128 threads, the first warp's index a
// multiple of 4). One `wgmma.mma_async.sync.aligned.m64nNkK` computes
// D[64 x N] = A[64 x K] * B[K x N] + D for N = 8..256 step 8, all 128
// threads issuing it together; K is 32 bytes of a row (k_per_instr_v: 16 for
// f16/bf16, 32 for e4m3/e5m2). B always comes from shared memory through a
// 64-bit descriptor; A from shared memory (SS mode) or registers (RS mode).
//
// Issue protocol, per warpgroup:
//   wgmma::fence();                     before the first wgmma that reads accumulator
//                                       registers (or RS A registers) written by
//                                       ordinary instructions
//   wgmma::mma_ss<N, AccT, InT>(...);   any number, back to back (async); or mma_rs
//   wgmma::commit_group();              close the batch
//   wgmma::wait_group<0>();             accumulators readable; shared operands and RS A
//                                       registers free (neither may be written before)
// Shared memory written with ordinary stores must be made visible to the
// async proxy first: fence_proxy_async_shared() (croq/device/fence.h) and a
// barrier. TMA writes need no such fence.
//
// This header compiles for every target; outside an sm_90a device pass the
// instruction wrappers trap when executed (croq/device/arch.h).
//
// ---- Shared-memory matrix descriptor (64 bits) ----------------------------
//
//   bits  0..13  start address >> 4       (shared-state-space byte address)
//   bits 16..29  leading dimension byte offset (LBO) >> 4
//   bits 32..45  stride dimension byte offset (SBO) >> 4
//   bits 49..51  matrix base offset        (0 when the swizzle pattern starts
//                                           at a 1024-byte-aligned address)
//   bits 62..63  swizzle mode: 0 none, 1 128B, 2 64B, 3 32B
//   other bits   0
//
// Operand tiles are built from "core matrices" of 8 rows x 16 bytes. For the
// common K-major case (A stored [M][K], B stored [N][K], K contiguous; no
// transpose flag):
//   - swizzled 32/64/128B: each row of the tile is one swizzle row of W =
//     32/64/128 bytes (16/32/64 f16 along K), 8 rows form a W x 8 swizzle
//     atom. SBO = byte distance between consecutive 8-row groups (8 * W for a
//     dense tile: 1024 for 128B). LBO is not used (set it to 1, i.e. 16 bytes).
//     The k-th K slice of a tile starts 32 * k bytes after the tile start
//     (advance_desc), as long as it stays inside the W-byte row; the swizzle
//     is applied by the hardware on absolute addresses, so the tile must be
//     1024-byte aligned.
//   - no swizzle: each 8x16B core matrix is 128 contiguous bytes. LBO = byte
//     distance between the two core matrices adjacent along K, SBO = byte
//     distance between core matrices adjacent along M/N.
// MN-major operands (transpose flag 1, f16/bf16 only; A stored [K][M], B
// stored [K][N]) swap the roles (PTX ISA, "Shared Memory Matrix Layout"):
//   - swizzled: each row of the tile is W bytes along M or N, 8 rows along K
//     form the swizzle atom. LBO = byte distance between atoms adjacent along
//     M/N (the next W-byte column block), SBO = byte distance between 8-row
//     groups adjacent along K (8 * W for a dense tile). The k-th k16 slice
//     starts 16 rows (16 * W bytes) after the tile start.
//
// ---- Accumulator layout (m64nN) -------------------------------------------
//
// Thread `tid` of the warpgroup (0..127), warp w = tid / 32, lane l = tid % 32,
// g = l / 4, t = l % 4. Accumulator element i (0 .. N/2 - 1) is at
//   row = 16 * w + g + 8 * ((i / 2) % 2)
//   col = 8 * (i / 4) + 2 * t + (i % 2)
// (the mma.sync m16n8k16 C layout repeated over N/8 column blocks, one 16-row
// slab per warp; acc_row / acc_col in croq/device/wgmma_layout.h). f32
// accumulators: d[i] is element i. f16 accumulators: d[r] (u32) packs
// elements 2r (low half) and 2r + 1 (high half).
//
// ---- RS mode A registers ----------------------------------------------------
//
// A[64 x 16] as 4 x u32 per thread: warp w holds rows 16w .. 16w+15 in the
// mma.sync m16n8k16 A layout (mma::a_row / a_col plus 16 * w); a_row / a_col
// below give the coordinates, and croq/device/wgmma_tile.h loads whole atoms
// (load_a_ldsm, load_a).
#pragma once

#include <cstdint>
#include <type_traits>

#include "croq/device/arch.h"
#include "croq/device/mma_sync.h"
#include "croq/device/swizzle.h"
#include "croq/device/wgmma_instructions.h"
#include "croq/device/wgmma_layout.h"
#include "croq/types.h"

// 1 in device passes where wgmma exists (sm_90a), else 0.
#define CROQ_HAS_WGMMA CROQ_SM90A_ENABLED

namespace croq {
namespace wgmma {

// ---- descriptors ------------------------------------------------------------

// The 2-bit swizzle field of a descriptor for a swizzle mode.
CROQ_HOST_DEVICE constexpr std::uint64_t desc_swizzle_bits(swizzle_mode mode) {
  switch (mode) {
    case swizzle_mode::b128: return 1;
    case swizzle_mode::b64: return 2;
    case swizzle_mode::b32: return 3;
    case swizzle_mode::none: break;
  }
  return 0;
}

// Packs a descriptor. `smem_addr` is the shared-state-space address of the
// tile start (cvta_shared), the offsets are in bytes; all are multiples of 16.
CROQ_HOST_DEVICE constexpr std::uint64_t make_desc(std::uint32_t smem_addr, std::uint32_t lbo_bytes,
                                                   std::uint32_t sbo_bytes, swizzle_mode mode,
                                                   std::uint32_t base_offset = 0) {
  return (static_cast<std::uint64_t>((smem_addr >> 4) & 0x3FFFu)) |
         (static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3FFFu) << 16) |
         (static_cast<std::uint64_t>((sbo_bytes >> 4) & 0x3FFFu) << 32) |
         (static_cast<std::uint64_t>(base_offset & 0x7u) << 49) | (desc_swizzle_bits(mode) << 62);
}

// Descriptor of a tile given by a generic pointer into shared memory.
CROQ_DEVICE std::uint64_t make_desc(const void* smem_ptr, std::uint32_t lbo_bytes, std::uint32_t sbo_bytes,
                                    swizzle_mode mode) {
  return make_desc(cvta_shared(smem_ptr), lbo_bytes, sbo_bytes, mode);
}

// Descriptor of a K-major tile whose rows are one swizzle row each (W = 32,
// 64 or 128 bytes) and whose 8-row groups are dense: SBO = 8 * W, LBO unused.
CROQ_DEVICE std::uint64_t make_desc_k_major(const void* smem_ptr, swizzle_mode mode) {
  return make_desc(cvta_shared(smem_ptr), 16, 8 * swizzle_bytes(mode), mode);
}

// The same descriptor with its start address moved by `bytes` (a multiple of
// 16), e.g. 32 * k for the k-th k16 slice of an f16 K-major tile.
CROQ_HOST_DEVICE constexpr std::uint64_t advance_desc(std::uint64_t desc, std::uint32_t bytes) {
  return desc + static_cast<std::uint64_t>(bytes >> 4);
}

// ---- fences -------------------------------------------------------------------

// wgmma.fence.sync.aligned: orders earlier register writes (accumulators, RS
// A fragments) and shared-memory accesses before the following wgmma.
CROQ_DEVICE void fence() {
#if CROQ_SM90A_ENABLED
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// wgmma.commit_group.sync.aligned: closes the group of wgmmas issued so far.
CROQ_DEVICE void commit_group() {
#if CROQ_SM90A_ENABLED
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// wgmma.wait_group.sync.aligned N: waits until at most N groups are pending.
template <int N>
CROQ_DEVICE void wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
#if CROQ_SM90A_ENABLED
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// Compiler-only barrier on accumulator registers: keeps the compiler from
// moving reads or writes of `r` across a wgmma issue / wait boundary (no
// instruction is emitted).
CROQ_DEVICE void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
CROQ_DEVICE void fence_operand(std::uint32_t& r) { asm volatile("" : "+r"(r)::"memory"); }
template <typename T, int Count>
CROQ_DEVICE void fence_operands(T (&regs)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i) fence_operand(regs[i]);
}

// ---- accumulators and layouts ----------------------------------------------


// Row / column (within the 64 x 16 A tile) of RS-mode A element e (0..7,
// register e / 2, low half = even e) of warpgroup thread `tid`.
CROQ_HOST_DEVICE constexpr int a_row(int tid, int e) { return 16 * (tid / 32) + mma::a_row(tid % 32, e); }
CROQ_HOST_DEVICE constexpr int a_col(int tid, int e) { return mma::a_col(tid % 32, e); }

// ---- entry points -------------------------------------------------------------

// SS mode: acc (+)= A * B with A and B described by shared-memory descriptors
// (one instruction: K = k_per_instr_v<InT>, 16 or 32).
//   TransA / TransB: 0 = K-major operand, 1 = MN-major (transposed) operand.
//   ScaleA / ScaleB: 1 or -1 (negate an operand).
//   scale_d: 0 -> acc = A * B (old accumulator ignored), nonzero -> acc += A * B.
template <int N, typename AccT, typename InT, int TransA = 0, int TransB = 0, int ScaleA = 1, int ScaleB = 1>
CROQ_DEVICE void mma_ss(accumulator_t<N, AccT>& acc, std::uint64_t desc_a, std::uint64_t desc_b,
                        int scale_d = 1) {
  static_assert(supported_v<N, AccT, InT>,
                "wgmma takes N = 8..256 step 8, f16, e4m3 or e5m2 inputs with f32 or f16 accumulators, or bf16 "
                "inputs with f32 accumulators");
  static_assert((TransA == 0 || TransA == 1) && (TransB == 0 || TransB == 1), "transpose flags are 0 or 1");
  static_assert(sizeof(InT) == 2 || (TransA == 0 && TransB == 0), "8-bit operands are K-major");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "operand scales are 1 or -1");
  detail::ss<N, AccT, InT>::template run<TransA, TransB, ScaleA, ScaleB>(acc, desc_a, desc_b, scale_d);
}

// Sparse SS mode: acc (+)= A * B with A 2:4 sparse (wgmma.mma_async.sp): its
// descriptor describes the 64 x K/2 kept elements, `meta` is this thread's
// metadata register (sparse_meta_word, croq/device/wgmma_layout.h), B the
// N x K operand (K = 2 * k_per_instr_v<InT>: 32, or 64 for 8-bit floats).
template <int N, typename AccT, typename InT, int TransA = 0, int TransB = 0, int ScaleA = 1, int ScaleB = 1>
CROQ_DEVICE void mma_sp_ss(accumulator_t<N, AccT>& acc, std::uint64_t desc_a, std::uint64_t desc_b,
                           std::uint32_t meta, int scale_d = 1) {
  static_assert(supported_v<N, AccT, InT>,
                "sparse wgmma takes N = 8..256 step 8, f16, e4m3 or e5m2 inputs with f32 or f16 accumulators, or "
                "bf16 inputs with f32 accumulators");
  static_assert(sizeof(InT) == 2 || (TransA == 0 && TransB == 0), "8-bit operands are K-major");
  detail::sp_ss<N, AccT, InT>::template run<TransA, TransB, ScaleA, ScaleB>(acc, desc_a, desc_b, meta, scale_d);
}

// RS mode: acc (+)= A * B with A in registers (4 x u32 per thread, see a_row /
// a_col) and B described by a shared-memory descriptor.
template <int N, typename AccT, typename InT, int TransB = 0, int ScaleA = 1, int ScaleB = 1>
CROQ_DEVICE void mma_rs(accumulator_t<N, AccT>& acc, const std::uint32_t (&a)[4], std::uint64_t desc_b,
                        int scale_d = 1) {
  static_assert(supported_v<N, AccT, InT> && sizeof(InT) == 2,
                "wgmma with A in registers takes N = 8..256 step 8, f16 inputs with f32 or f16 accumulators, or "
                "bf16 inputs with f32 accumulators");
  static_assert(TransB == 0 || TransB == 1, "the transpose flag is 0 or 1");
  static_assert((ScaleA == 1 || ScaleA == -1) && (ScaleB == 1 || ScaleB == -1), "operand scales are 1 or -1");
  detail::rs<N, AccT, InT>::template run<TransB, ScaleA, ScaleB>(acc, a, desc_b, scale_d);
}

}  // namespace wgmma
}  // namespace croq
