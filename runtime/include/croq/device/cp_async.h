// croq/device/cp_async.h: asynchronous global -> shared copies of 4, 8 or 16
// bytes per thread (`cp.async`, sm_80+) and their group fences.
//
//   cp.async.cg.shared.global.L2::128B [dst], [src], 16, src_size;
//     16 bytes, cached in L2 only (.cg allows only 16). The first `src_size`
//     bytes (0..16) come from global memory and the rest of the 16 bytes in
//     shared memory are zero-filled: this is how a partial tile at a tensor
//     edge is padded with zeros. With src_size == 0 no global byte is read,
//     but pass a valid address anyway (e.g. the tensor's base pointer).
//   cp.async.ca.shared.global [dst], [src], N{, src_size};
//     N = 4, 8 or 16 bytes, cached in L1 and L2.
//   cp.async.commit_group;      closes the group of copies issued so far by this thread
//   cp.async.wait_group N;      waits until at most N of this thread's groups are pending
//   cp.async.wait_all;          waits for all of them (= commit_group + wait_group 0)
//
// `dst` is a shared address (cvta_shared) aligned to the copy size; `src` a
// global pointer aligned to the copy size. The copies are only guaranteed
// visible to other threads after the wait and a barrier (__syncthreads()).
#pragma once

#include <cstdint>

#include "croq/device/arch.h"

namespace croq {

// 16-byte copy, L2 only, zero-filling bytes [src_bytes, 16) of the destination.
CROQ_DEVICE void cp_async_cg_16(std::uint32_t smem_dst, const void* gmem_src, std::uint32_t src_bytes = 16) {
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(smem_dst), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// Bytes-byte copy (4, 8 or 16) cached in L1 and L2.
template <int Bytes>
CROQ_DEVICE void cp_async_ca(std::uint32_t smem_dst, const void* gmem_src) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smem_dst), "l"(gmem_src), "n"(Bytes)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// As cp_async_ca, reading only the first `src_bytes` bytes and zero-filling the rest.
template <int Bytes>
CROQ_DEVICE void cp_async_ca_zfill(std::uint32_t smem_dst, const void* gmem_src, std::uint32_t src_bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async.ca copies 4, 8 or 16 bytes");
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_dst), "l"(gmem_src), "n"(Bytes),
               "r"(src_bytes)
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// cp.async.commit_group
CROQ_DEVICE void cp_async_commit() {
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// cp.async.wait_group N: at most N committed groups of this thread still pending.
template <int N>
CROQ_DEVICE void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes a non-negative count");
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// cp.async.wait_all
CROQ_DEVICE void cp_async_wait_all() {
#if CROQ_SM80_ENABLED
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

}  // namespace croq
