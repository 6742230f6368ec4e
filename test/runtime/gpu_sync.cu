// gpu_sync.cu: the runtime's synchronisation and small-copy wrappers on a GPU
// (sm_90a: setmaxnreg and elect.sync need it):
//   mbarrier   four phases of a 128-arrival barrier: nobody leaves wait_parity
//              before every thread's write of that phase is visible, and the
//              parity sequence 0, 1, 0, 1 is the one documented
//   elect      elect_one_sync() picks exactly one lane per warp
//   named bar  two warpgroups hand data over through named_barrier_arrive / sync
//   setmaxnreg a producer/consumer register split (setreg_dec / setreg_inc) runs
//   cp.async   cp_async_ca<4/8/16> copy, and cp_async_ca_zfill zero-fills the tail
// Prints PASS/FAIL per check; exits 1 on failure.
#include <cstdint>
#include <cstdio>

#include "croq/croq.h"

namespace {

constexpr int kPhases = 4;

// 384 threads = 3 warpgroups. errors[0]: mbarrier ordering, [1]: elections
// per warp != 1, [2]: named-barrier handoff, [3]: a thread past setmaxnreg.
__global__ void __launch_bounds__(384, 1) sync_kernel(int* errors) {
  __shared__ alignas(8) std::uint64_t bar;
  __shared__ int slots[kPhases][128];
  __shared__ int elected[12];
  __shared__ int handoff[128];
  const int tid = static_cast<int>(threadIdx.x);
  const int wg = tid / 128;
  const int t = tid % 128;

  if (tid == 0) croq::mbarrier::init(&bar, 128);
  if (tid < 12) elected[tid] = 0;
  __syncthreads();

  // Warpgroup 1 runs the barrier: in phase p each thread writes its slot and
  // arrives; after the wait it checks all 128 slots of phase p.
  if (wg == 1) {
    std::uint32_t parity = 0;
    for (int p = 0; p < kPhases; ++p) {
      slots[p][t] = p + 1;
      croq::mbarrier::arrive(&bar);
      croq::mbarrier::wait_parity(&bar, parity);
      parity ^= 1u;
      for (int i = 0; i < 128; ++i)
        if (slots[p][i] != p + 1) atomicAdd(&errors[0], 1);
    }
  }

  if (croq::elect_one_sync()) atomicAdd(&elected[tid / 32], 1);

  // Warpgroup 0 produces, warpgroup 2 consumes through named barrier 1.
  if (wg == 0) {
    croq::cuda::setreg_dec(40);
    handoff[t] = 1000 + t;
    croq::named_barrier_arrive(1, 256);
  } else if (wg == 2) {
    croq::cuda::setreg_inc<232>();
    croq::named_barrier_sync(1, 256);
    if (handoff[t] != 1000 + t) atomicAdd(&errors[2], 1);
  }
  __syncthreads();
  if (tid < 12 && elected[tid] != 1) atomicAdd(&errors[1], 1);
  atomicAdd(&errors[3], 1);  // every thread gets here
  if (tid == 0) croq::mbarrier::inval(&bar);
}

// Thread i copies 4, 8 and 16 bytes from src and 16 bytes with src_size = i % 17 (rounded
// down to 4) through cp.async.ca, then writes the staged bytes out.
__global__ void cp_async_kernel(const std::uint8_t* src, std::uint8_t* out) {
  __shared__ alignas(16) std::uint8_t stage[32][4 * 16];
  const int i = static_cast<int>(threadIdx.x);
  for (int b = 0; b < 64; ++b) stage[i][b] = 0xEE;
  __syncwarp();
  const std::uint8_t* row = src + i * 64;
  croq::cp_async_ca<4>(croq::cvta_shared(&stage[i][0]), row);
  croq::cp_async_ca<8>(croq::cvta_shared(&stage[i][16]), row + 16);
  croq::cp_async_ca<16>(croq::cvta_shared(&stage[i][32]), row + 32);
  croq::cp_async_commit();
  croq::cp_async_ca_zfill<16>(croq::cvta_shared(&stage[i][48]), row + 48,
                              static_cast<std::uint32_t>((i % 17) / 4 * 4));
  croq::cp_async_commit();
  croq::cp_async_wait<1>();
  croq::cp_async_wait_all();
  for (int b = 0; b < 64; ++b) out[i * 64 + b] = stage[i][b];
}

bool report(const char* name, int bad) {
  std::printf("%s %s (%d errors)\n", bad == 0 ? "PASS" : "FAIL", name, bad);
  return bad == 0;
}

}  // namespace

int main() {
  bool ok = true;
  croq::device_buffer<int> d_errors(4);
  CROQ_CUDA_CHECK(cudaMemset(d_errors.get(), 0, 4 * sizeof(int)));
  sync_kernel<<<1, 384>>>(d_errors.get());
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  int errors[4];
  d_errors.copy_to_host(errors, 4);
  ok &= report("mbarrier: 4 phases of 128 arrivals, parity 0,1,0,1", errors[0]);
  ok &= report("elect_one_sync: one lane per warp", errors[1]);
  ok &= report("named barrier handoff between warpgroups", errors[2]);
  ok &= report("setmaxnreg dec/inc: all 384 threads finish", errors[3] == 384 ? 0 : 384 - errors[3]);

  auto src = croq::make_spandata<croq::u8>(32 * 64);
  src.fill_random(1, 255);  // never zero
  croq::device_buffer<std::uint8_t> d_src(src.element_count()), d_out(src.element_count());
  d_src.copy_from_host(src.data(), src.element_count());
  d_out.poison();
  cp_async_kernel<<<1, 32>>>(d_src.get(), d_out.get());
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  auto out = croq::make_spandata<croq::u8>(32 * 64);
  d_out.copy_to_host(out.data(), out.element_count());
  int bad = 0;
  for (int i = 0; i < 32; ++i) {
    const int zfill_valid = (i % 17) / 4 * 4;
    for (int b = 0; b < 64; ++b) {
      int want;
      if (b < 16)
        want = b < 4 ? src[i * 64 + b] : 0xEE;
      else if (b < 32)
        want = b < 24 ? src[i * 64 + b] : 0xEE;
      else if (b < 48)
        want = src[i * 64 + b];
      else
        want = b - 48 < zfill_valid ? src[i * 64 + b] : 0;
      if (out[i * 64 + b] != want) {
        if (bad < 5)
          std::printf("  cp.async: thread %d byte %d = %d, expected %d\n", i, b, out[i * 64 + b], want);
        ++bad;
      }
    }
  }
  ok &= report("cp.async.ca 4/8/16 bytes and zero-fill", bad);

  if (!ok) {
    std::printf("FAIL gpu_sync\n");
    return 1;
  }
  std::printf("PASS gpu_sync\n");
  return 0;
}
