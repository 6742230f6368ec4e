// croq/device/fence.h: memory-proxy fences and named barriers.
//
//   fence_proxy_async_shared()  fence.proxy.async.shared::cta;       sm_90
//       Orders this thread's ordinary (generic-proxy) shared-memory accesses
//       with later async-proxy accesses (wgmma operand reads, TMA stores from
//       shared memory) and vice versa. Write the tile, fence, barrier, then
//       issue the wgmma / TMA store.
//   fence_proxy_async()         fence.proxy.async;                   sm_90 (all state spaces)
//   fence_mbarrier_init()       fence.mbarrier_init.release.cluster;  sm_90 (earlier: nothing, the
//                               __syncthreads() after the initialisation suffices)
//       Makes mbarrier.init visible to the async proxy (TMA complete_tx) and to
//       the other CTAs of the cluster; follow it with a barrier.
//   fence_acq_rel_cta()         fence.acq_rel.cta;                   sm_70
//   named_barrier_sync(id, n)   bar.sync id, n;     waits for n threads (multiple of 32) at barrier id
//   named_barrier_arrive(id, n) bar.arrive id, n;   arrives without waiting
//       Barrier 0 is the one __syncthreads() uses; ids go up to 15.
//   cluster::sync()             barrier.cluster.arrive.release + barrier.cluster.wait.acquire;  sm_90
//       Every thread of every block of the cluster arrives; shared-memory
//       accesses before it are visible across the cluster after it.
//   grid_sync()                 the grid-wide barrier of a cooperative launch
//       (cudaLaunchCooperativeKernel: every block of the grid is resident):
//       all threads of all blocks arrive, global-memory writes before it are
//       visible to every block after it.
#pragma once

#include <cooperative_groups.h>
#include <cstdint>

#include "croq/device/arch.h"

namespace croq {

CROQ_DEVICE void grid_sync() { cooperative_groups::this_grid().sync(); }

CROQ_DEVICE void fence_proxy_async_shared() {
#if CROQ_SM90_ENABLED
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void fence_proxy_async() {
#if CROQ_SM90_ENABLED
  asm volatile("fence.proxy.async;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

namespace cluster {
CROQ_DEVICE void sync() {
#if CROQ_SM90_ENABLED
  asm volatile(
      "barrier.cluster.arrive.release;\n"
      "barrier.cluster.wait.acquire;\n" ::
          : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}
}  // namespace cluster

CROQ_DEVICE void fence_mbarrier_init() {
#if CROQ_SM90_ENABLED
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#elif CROQ_SM80_ENABLED
  // Before sm_90 only the CTA's threads use an mbarrier; the __syncthreads()
  // that follows the initialisation makes it visible to them.
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void fence_acq_rel_cta() {
#if defined(__CUDA_ARCH__)
  asm volatile("fence.acq_rel.cta;\n" ::: "memory");
#endif
}

CROQ_DEVICE void named_barrier_sync(std::uint32_t id, std::uint32_t thread_count) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(thread_count) : "memory");
#endif
}

CROQ_DEVICE void named_barrier_arrive(std::uint32_t id, std::uint32_t thread_count) {
#if defined(__CUDA_ARCH__)
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(thread_count) : "memory");
#endif
}

}  // namespace croq
