// compile_check.cu: instantiates every runtime wrapper inside kernels so that
// `nvcc -Werror all-warnings` checks the inline PTX of each one for sm_86 and
// sm_90a (run_compile_checks.sh). Nothing here is meant to run: the kernels
// only route every result to memory so that no wrapper is optimized away.
#include <cstdint>
#include <utility>

#include "choreo.h"
#include "croq/croq.h"

using croq::bf16;
using croq::f16;

// ldmatrix, mma.sync, stmatrix, swizzle and fragment coordinates.
__global__ void check_ldmatrix_mma_stmatrix(std::uint32_t* out_u, float* out_f) {
  __shared__ alignas(128) std::uint16_t tile[32 * 8];
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::uint32_t addr = croq::cvta_shared(&tile[lane * 8]);

  std::uint32_t r[4] = {0, 0, 0, 0};
  croq::ldmatrix_x1(r[0], addr);
  croq::ldmatrix_x2(r[0], r[1], addr);
  croq::ldmatrix_x4(r[0], r[1], r[2], r[3], addr);
  croq::ldmatrix_x1_trans(r[0], addr);
  croq::ldmatrix_x2_trans(r[1], r[2], addr);
  croq::ldmatrix_x4_trans(r[0], r[1], r[2], r[3], addr);

  croq::mma::frag_a a;
  croq::mma::frag_b b;
  croq::ldmatrix_x4(a.r, addr);
  croq::ldmatrix_x2_trans(b.r, addr);
  std::uint32_t b2[2];
  croq::ldmatrix_x2(b2, addr);
  std::uint32_t a4[4];
  croq::ldmatrix_x4_trans(a4, addr);

  croq::mma::frag_c<f16> c16{{r[0], r[1]}};
  croq::mma::frag_c<float> c32{{1.0f, 2.0f, 3.0f, 4.0f}};
  croq::mma::frag_c<float> cbf{{1.0f, 2.0f, 3.0f, 4.0f}};
  croq::mma::m16n8k16_f16_f16(c16.r, a.r, b.r, c16.r);
  croq::mma::m16n8k16_f32_f16(c32.r, a.r, b.r, c32.r);
  croq::mma::m16n8k16_f32_bf16(cbf.r, a.r, b2, cbf.r);
  croq::mma::mma<f16>(c16, a, b);
  croq::mma::mma<f16>(c32, a, b);
  croq::mma::mma<bf16>(cbf, a, b);

  croq::stmatrix_x1(addr, c16.r[0]);
  croq::stmatrix_x2(addr, c16.r[0], c16.r[1]);
  croq::stmatrix_x4(addr, a4[0], a4[1], a4[2], a4[3]);
  croq::stmatrix_x1_trans(addr, c16.r[0]);
  croq::stmatrix_x2_trans(addr, c16.r[0], c16.r[1]);
  croq::stmatrix_x4_trans(addr, a4[0], a4[1], a4[2], a4[3]);

  const int e = lane % 8;
  const int coords = croq::mma::a_row(lane, e) + croq::mma::a_col(lane, e) + croq::mma::b_row(lane, e % 4) +
                     croq::mma::b_col(lane, e % 4) + croq::mma::c_row(lane, e % 4) +
                     croq::mma::c_col(lane, e % 4) +
                     static_cast<int>(croq::swizzle_offset(croq::swizzle_mode::b128, lane * 16u)) +
                     static_cast<int>(croq::swizzle_offset(croq::swizzle_mode::b64, lane * 16u)) +
                     static_cast<int>(croq::swizzle_offset(croq::swizzle_mode::b32, lane * 16u));
  out_u[threadIdx.x] = c16.r[0] + c16.r[1] + b2[0] + a4[3] + static_cast<std::uint32_t>(coords);
  out_f[threadIdx.x] = c32.r[0] + c32.r[3] + cbf.r[1] + croq::to_f32(croq::utils::from_f32<f16>(1.5f));
}

// cp.async in all its sizes, groups and waits.
__global__ void check_cp_async(const int4* src, int* out) {
  __shared__ alignas(16) int4 staging[4 * 32];
  const int t = static_cast<int>(threadIdx.x);
  croq::cp_async_cg_16(croq::cvta_shared(&staging[t]), src + t);
  croq::cp_async_cg_16(croq::cvta_shared(&staging[32 + t]), src + t, 8u);
  croq::cp_async_ca<4>(croq::cvta_shared(&staging[64 + t]), src + t);
  croq::cp_async_ca<8>(croq::cvta_shared(&staging[64 + t]), src + t);
  croq::cp_async_ca<16>(croq::cvta_shared(&staging[64 + t]), src + t);
  croq::cp_async_ca_zfill<16>(croq::cvta_shared(&staging[96 + t]), src + t, 4u);
  croq::cp_async_ca_zfill<4>(croq::cvta_shared(&staging[96 + t]), src + t, 0u);
  croq::cp_async_commit();
  croq::cp_async_wait<1>();
  croq::cp_async_wait<0>();
  croq::cp_async_wait_all();
  __syncthreads();
  out[t] = staging[t].x + staging[32 + t].y + staging[64 + t].z + staging[96 + t].w;
}

// mbarrier, TMA, fences and warp helpers.
__global__ void check_mbarrier_tma(const __grid_constant__ CUtensorMap map2d,
                                   const __grid_constant__ CUtensorMap map3d, int* out) {
  __shared__ alignas(1024) std::uint16_t tile[64 * 64];
  __shared__ alignas(8) std::uint64_t bar;
  croq::tma::prefetch_descriptor(&map2d);
  if (threadIdx.x == 0) {
    croq::mbarrier::init(&bar, 1);
    croq::fence_mbarrier_init();
  }
  __syncthreads();
  std::uint32_t phase = 0;
  if (croq::elect_one_sync() && threadIdx.x < 32) {
    croq::mbarrier::arrive_expect_tx(&bar, sizeof(tile));
    croq::tma::load_2d(tile, &map2d, &bar, 64, 0);
    croq::tma::load_3d(tile, &map3d, &bar, 1, 2, 3);
    const std::uint64_t first = croq::tma::evict_first_policy();
    const std::uint64_t last = croq::tma::evict_last_policy();
    croq::tma::load_2d_hint(tile, &map2d, &bar, 0, 64, first);
    croq::tma::load_3d_hint(tile, &map3d, &bar, 0, 0, 8, last);
    croq::mbarrier::expect_tx(&bar, 16);
  }
  croq::mbarrier::wait_parity(&bar, phase);
  phase ^= 1u;
  const bool done = croq::mbarrier::try_wait_parity(&bar, phase);
  const std::uint64_t state = croq::mbarrier::arrive(&bar);
  croq::fence_proxy_async_shared();
  croq::fence_proxy_async();
  croq::fence_acq_rel_cta();
  croq::named_barrier_arrive(1, 64);
  croq::named_barrier_sync(1, 64);
  __syncthreads();
  if (threadIdx.x == 0) {
    croq::tma::store_2d(&map2d, tile, 0, 0);
    croq::tma::store_3d(&map3d, tile, 0, 0, 0);
    croq::tma::commit_group();
    croq::tma::wait_group_read<0>();
    croq::tma::wait_group<0>();
    croq::mbarrier::inval(&bar);
  }
  out[threadIdx.x] = static_cast<int>(done) + static_cast<int>(state & 1u) +
                     static_cast<int>(croq::lane_id()) + static_cast<int>(croq::warp_id_in_warpgroup()) +
                     tile[threadIdx.x];
}

// setmaxnreg through both spellings.
// setmaxnreg needs a known register count at kernel entry: __launch_bounds__.
__global__ void __launch_bounds__(256, 1) check_setmaxnreg(int* out) {
  if (threadIdx.x < 128) {
    croq::cuda::setreg_dec<40>();
    croq::cuda::setreg_dec(24);
  } else {
    croq::cuda::setreg_inc<232>();
    croq::cuda::setreg_inc(240);
  }
  out[threadIdx.x] = 1;
}

// Every wgmma variant: N = 8..256 step 8, SS and RS, for one (AccT, InT) pair;
// one kernel per N so that each gets the whole register file.
template <typename AccT, typename InT, int N>
__global__ void __launch_bounds__(128, 1) check_wgmma(float* out) {
  __shared__ alignas(1024) std::uint16_t tile[64 * 64];
  const std::uint64_t desc_a = croq::wgmma::make_desc_k_major(tile, croq::swizzle_mode::b128);
  const std::uint64_t desc_b =
      croq::wgmma::advance_desc(croq::wgmma::make_desc(tile, 128, 256, croq::swizzle_mode::none), 32);
  static_assert(croq::wgmma::make_desc(0x400u, 16, 1024, croq::swizzle_mode::b128) ==
                    ((1ull << 62) | (64ull << 32) | (1ull << 16) | 0x40ull),
                "descriptor bit layout");
  static_assert(croq::wgmma::acc_row(33, 6) == 16 + 0 + 8 && croq::wgmma::acc_col(33, 6) == 8 + 2 + 0,
                "accumulator layout");

  using croq::wgmma::accumulator;
  typename accumulator<N, AccT>::type acc;
#pragma unroll
  for (int i = 0; i < accumulator<N, AccT>::registers; ++i) acc[i] = {};
  const std::uint32_t a[4] = {1u, 2u, 3u, 4u};
  croq::wgmma::fence_operands(acc);
  croq::wgmma::fence();
  croq::wgmma::mma_ss<N, AccT, InT>(acc, desc_a, desc_b, 0);
  croq::wgmma::mma_ss<N, AccT, InT, 1, 1, -1, -1>(acc, desc_a, desc_b);
  croq::wgmma::mma_rs<N, AccT, InT>(acc, a, desc_b, 1);
  croq::wgmma::mma_rs<N, AccT, InT, 1, -1, 1>(acc, a, desc_b);
  croq::wgmma::commit_group();
  croq::wgmma::wait_group<1>();
  croq::wgmma::wait_group<0>();
  croq::wgmma::fence_operands(acc);
  float sum = static_cast<float>(croq::wgmma::a_row(static_cast<int>(threadIdx.x), 3) +
                                 croq::wgmma::a_col(static_cast<int>(threadIdx.x), 5));
#pragma unroll
  for (int i = 0; i < accumulator<N, AccT>::registers; ++i) sum += static_cast<float>(acc[i]);
  out[threadIdx.x] = sum;
}

template <typename AccT, typename InT, int... Ks>
void instantiate_wgmma(std::integer_sequence<int, Ks...>, float* out) {
  (check_wgmma<AccT, InT, (Ks + 1) * 8><<<1, 128>>>(out), ...);
}

// Host API and tensor-map construction, type-checked only.
void check_host_api(float* device_out) {
  auto data = croq::make_spandata<f16>(4, 8);
  data.fill_random(-1.0f, 1.0f);
  data.fill(0.5f);
  data.fill(croq::utils::from_f32<f16>(0.25f));
  auto ints = choreo::make_spandata<choreo::s32>(2, 3, 4);
  ints.fill_random(-10, 10);
  ints[1][2][3] = 7;
  croq::croq_assert(ints.rank() == 3 && ints.shape()[2] == 4, "shape");
  choreo::choreo_assert(!(data != data), "equality");
  croq::abend_true(ints.element_count() != 24, "count");
  auto view = croq::make_spanview<2>(device_out, {4, 8});
  auto view2 = croq::make_spanview<float, 2>(device_out, {4, 8});
  auto view3 = croq::make_spanview<2, float>(device_out, {4, 8});
  auto view4 = croq::make_spanned<1>(data.data(), {32});
  croq::poison(view);
  croq::poison(view2.data(), view3.element_count());
  (void)view4;
  croq::gpu_timer timer;
  timer.start();
  timer.stop();
  (void)timer.elapsed_ms();
  (void)croq::time_ms(
      [&] { instantiate_wgmma<float, f16>(std::make_integer_sequence<int, 32>{}, device_out); });
  instantiate_wgmma<f16, f16>(std::make_integer_sequence<int, 32>{}, device_out);
  instantiate_wgmma<float, bf16>(std::make_integer_sequence<int, 32>{}, device_out);

  croq::device_buffer<f16> buffer(64 * 64);
  buffer.copy_from_host(data.data(), data.element_count());
  buffer.poison();
  const CUtensorMap map2d =
      croq::tma::make_tensor_map_2d(buffer.get(), 64, 64, 64, 64, croq::swizzle_mode::b128);
  const CUtensorMap map3d = croq::tma::make_tensor_map_3d(buffer.get(), 4, 16, 64, 2, 8, 32);
  croq::device_buffer<int> ints_out(256);
  check_mbarrier_tma<<<1, 128>>>(map2d, map3d, ints_out.get());
  check_setmaxnreg<<<1, 256>>>(ints_out.get());
  check_cp_async<<<1, 32>>>(reinterpret_cast<const int4*>(buffer.get()), ints_out.get());
  croq::device_buffer<std::uint32_t> u_out(32);
  check_ldmatrix_mma_stmatrix<<<1, 32>>>(u_out.get(), device_out);
  CROQ_CUDA_CHECK(cudaGetLastError());
}
