// cpu_runtime_test.cpp: checks the CPU emulation runtime of `croqc
// --target=cpu` (runtime/include/croq/cpu) without a GPU: f16 / bf16 / fp8
// rounding, the built-in variables of every thread, block barriers and
// shared memory, shuffles and votes, the m16n8k16 MMA atom (fragment layouts,
// every ldmatrix form, f16 rounding of an f16 accumulator), the warpgroup MMA
// (copies into the swizzled layout, accumulator layout, f16 rounding after
// every k16 step), tile copies with tails and zero fill, launch errors, and
// that a deadlock, a divergent warp and an MMA in a partial warp or
// warpgroup are reported (in a child process) instead of hanging.
//
// Built the way croqc builds generated code for the CPU (test/lit/cpu/runtime.test):
//   g++ -std=c++17 -O2 -fopenmp -Iruntime/include/croq/cpu/cuda -Iruntime/include
//       test/runtime/cpu_runtime_test.cpp -o cpu_runtime_test
// Prints PASS and exits 0, or lists failures and exits 1.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "croq/croq.h"

namespace {

int failures = 0;

void check(bool ok, const char* what, int line) {
  if (!ok) {
    std::printf("FAIL line %d: %s\n", line, what);
    ++failures;
  }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

unsigned short bits(__half h) { return h.__x; }
unsigned short bits(__nv_bfloat16 b) { return b.__x; }

// ---- conversions ------------------------------------------------------------

void test_conversions() {
  CHECK(bits(__half(1.0f)) == 0x3C00);
  CHECK(bits(__half(-2.0f)) == 0xC000);
  CHECK(bits(__half(-0.0f)) == 0x8000);
  CHECK(bits(__half(65504.0f)) == 0x7BFF);
  CHECK(bits(__half(65519.0f)) == 0x7BFF);
  CHECK(bits(__half(65520.0f)) == 0x7C00);  // halfway to 2^16 rounds to even: inf
  CHECK(bits(__half(INFINITY)) == 0x7C00);
  CHECK(bits(__half(NAN)) == 0x7FFF);
  CHECK(bits(__half(std::ldexp(1.0f, -24))) == 0x0001);
  CHECK(bits(__half(std::ldexp(1.0f, -25))) == 0x0000);         // tie: to even (zero)
  CHECK(bits(__half(std::ldexp(1.5f, -25))) == 0x0001);
  CHECK(bits(__half(std::ldexp(3.0f, -25))) == 0x0002);         // tie: 1.5 ulp to even (2)
  CHECK(bits(__half(1.0f + std::ldexp(1.0f, -11))) == 0x3C00);  // tie: to even
  CHECK(bits(__half(1.0f + std::ldexp(3.0f, -11))) == 0x3C02);  // tie: to even
  CHECK(bits(__half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25))) == 0x0400);  // rounds up to the smallest normal
  bool round_trip = true;
  for (unsigned i = 0; i < 65536; ++i) {
    const __half h = __half_raw{static_cast<unsigned short>(i)};
    if (__hisnan(h)) continue;
    round_trip = round_trip && bits(__half(static_cast<float>(h))) == i;
  }
  CHECK(round_trip);

  CHECK(bits(__nv_bfloat16(1.0f)) == 0x3F80);
  CHECK(bits(__nv_bfloat16(1.0f + std::ldexp(1.0f, -8))) == 0x3F80);  // tie: to even
  CHECK(bits(__nv_bfloat16(1.0f + std::ldexp(3.0f, -8))) == 0x3F82);
  CHECK(bits(__nv_bfloat16(NAN)) == 0x7FFF);
  CHECK(__bfloat162float(__float2bfloat16_rn(-3.5f)) == -3.5f);

  CHECK(__nv_fp8_e4m3(1.0f).__x == 0x38);
  CHECK(__nv_fp8_e4m3(448.0f).__x == 0x7E);
  CHECK(__nv_fp8_e4m3(1000.0f).__x == 0x7E);  // saturates
  CHECK(__nv_fp8_e4m3(-1000.0f).__x == 0xFE);
  CHECK(__nv_fp8_e4m3(NAN).__x == 0x7F);
  CHECK(__nv_fp8_e4m3(std::ldexp(1.0f, -9)).__x == 0x01);  // smallest subnormal
  CHECK(__nv_fp8_e5m2(1.0f).__x == 0x3C);
  CHECK(__nv_fp8_e5m2(57344.0f).__x == 0x7B);
  CHECK(__nv_fp8_e5m2(1e9f).__x == 0x7B);
  bool fp8_round_trip = true;
  for (unsigned i = 0; i < 256; ++i) {
    __nv_fp8_e4m3 a;
    a.__x = static_cast<unsigned char>(i);
    __nv_fp8_e5m2 b;
    b.__x = static_cast<unsigned char>(i);
    const float fa = static_cast<float>(a), fb = static_cast<float>(b);
    if (!std::isnan(fa)) fp8_round_trip = fp8_round_trip && __nv_fp8_e4m3(fa).__x == i;
    if (!std::isnan(fb) && !std::isinf(fb)) fp8_round_trip = fp8_round_trip && __nv_fp8_e5m2(fb).__x == i;
  }
  CHECK(fp8_round_trip);
  CHECK(croq::cvt<croq::f16>(2.5f) == croq::f16(2.5f));
}

// ---- threads, blocks, barriers -------------------------------------------------

void indices_kernel(int* out) {
  const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  out[block * threads + thread] = block * 1000 + thread;
}

// Each thread writes its slot of shared memory, waits, and reads its
// neighbour's: wrong unless the barrier really holds every thread.
void rotate_kernel(int* out, int n) {
  int* s = reinterpret_cast<int*>(croq::cpu::dynamic_shared_memory());
  const int t = threadIdx.x;
  for (int round = 0; round < 3; ++round) {
    s[t] = t * 10 + round;
    __syncthreads();
    out[round * n + t] = s[(t + 1) % n];
    __syncthreads();
  }
  const int count = __syncthreads_count(t % 3 == 0);
  if (t == 0) out[3 * n] = count;
  const int all = __syncthreads_and(t >= 0);
  const int any = __syncthreads_or(t == 5);
  if (t == 0) out[3 * n + 1] = all * 10 + any;
}

// A per-block `__shared__` variable: one per block, shared by its threads.
void shared_variable_kernel(int* out) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, 1);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

void test_threads() {
  std::vector<int> out(2 * 3 * 16, -1);
  croq::cpu::launch(indices_kernel, "indices_kernel", dim3(2, 3), dim3(4, 2, 2), 0, out.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  bool ok = true;
  for (int b = 0; b < 6; ++b)
    for (int t = 0; t < 16; ++t) ok = ok && out[b * 16 + t] == b * 1000 + t;
  CHECK(ok);

  const int n = 100;
  std::vector<int> rot(3 * n + 2, -1);
  croq::cpu::launch(rotate_kernel, "rotate_kernel", dim3(1), dim3(n), n * sizeof(int), rot.data(), n);
  ok = true;
  for (int round = 0; round < 3; ++round)
    for (int t = 0; t < n; ++t) ok = ok && rot[round * n + t] == ((t + 1) % n) * 10 + round;
  CHECK(ok);
  CHECK(rot[3 * n] == 34);  // t % 3 == 0 for t in 0..99
  CHECK(rot[3 * n + 1] == 11);

  std::vector<int> totals(8, 0);
  croq::cpu::launch(shared_variable_kernel, "shared_variable_kernel", dim3(8), dim3(64), 0, totals.data());
  ok = true;
  for (int t : totals) ok = ok && t == 64;
  CHECK(ok);
}

// ---- warp operations --------------------------------------------------------------

void warp_kernel(int* out) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  int* o = out + warp * 32 * 5 + lane * 5;
  o[0] = __shfl_sync(0xFFFFFFFFu, lane * 7, 3);
  int sum = lane;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  o[1] = sum;
  o[2] = __shfl_down_sync(0xFFFFFFFFu, lane, 4, 8);
  o[3] = static_cast<int>(__ballot_sync(0xFFFFFFFFu, lane % 2 == 0));
  o[4] = __all_sync(0xFFFFFFFFu, lane < 32) * 10 + __any_sync(0xFFFFFFFFu, lane == 31);
  __syncwarp();
}

void test_warps() {
  std::vector<int> out(2 * 32 * 5, -1);
  croq::cpu::launch(warp_kernel, "warp_kernel", dim3(1), dim3(64), 0, out.data());
  bool ok = true;
  for (int w = 0; w < 2; ++w) {
    for (int lane = 0; lane < 32; ++lane) {
      const int* o = out.data() + w * 32 * 5 + lane * 5;
      ok = ok && o[0] == 21 && o[1] == 496 && o[2] == ((lane % 8) + 4 < 8 ? lane + 4 : lane) &&
           static_cast<unsigned>(o[3]) == 0x55555555u && o[4] == 11;
    }
  }
  CHECK(ok);
}

// ---- MMA atoms ----------------------------------------------------------------------

struct MmaData {
  croq::f16 a[16][16];   // A [M][K]
  croq::f16 at[16][16];  // A stored [K][M]
  croq::f16 b[16][16];   // two B atoms stored [N][K] (n 0..7, 8..15)
  croq::f16 bt[16][8];   // the first B atom stored [K][N]
  croq::bf16 a16[16][16], b16[8][16];
  float d32[16][8];
  croq::f16 d16[16][8];
  float dbf[16][8];
  float rounding32[16][8];
  croq::f16 rounding16[16][8];
  int layouts_equal;
};

void mma_kernel(MmaData* m) {
  using namespace croq::mma;
  frag_a a, a_ldsm, a_trans;
  load_a(a, &m->a[0][0], 16, 1, 16, 16);
  load_a_ldsm<false>(a_ldsm, &m->a[0][0], 16);
  load_a_ldsm<true>(a_trans, &m->at[0][0], 16);
  frag_b b, b_ldsm, b_trans, b0, b1, b_second;
  load_b(b, &m->b[0][0], 16, 1, 8, 16);
  load_b(b_second, &m->b[8][0], 16, 1, 8, 16);
  load_b_ldsm<false>(b_ldsm, &m->b[0][0], 16);
  load_b_ldsm<true>(b_trans, &m->bt[0][0], 8);
  load_b2_ldsm<false>(b0, b1, &m->b[0][0], 16);
  bool same = std::memcmp(&a, &a_ldsm, sizeof(a)) == 0 && std::memcmp(&a, &a_trans, sizeof(a)) == 0 &&
              std::memcmp(&b, &b_ldsm, sizeof(b)) == 0 && std::memcmp(&b, &b_trans, sizeof(b)) == 0 &&
              std::memcmp(&b, &b0, sizeof(b)) == 0 && std::memcmp(&b_second, &b1, sizeof(b)) == 0;
  atomicAnd(&m->layouts_equal, same ? 1 : 0);

  frag_c<float> c32[1][1];
  fill(c32, 0.5f);
  mma<croq::f16>(c32[0][0], a, b);
  store_c(c32[0][0], &m->d32[0][0], 8, 1, 16, 8);
  frag_c<croq::f16> c16[1][1];
  fill(c16, 0.5f);
  mma<croq::f16>(c16[0][0], a, b);
  store_c(c16[0][0], &m->d16[0][0], 8, 1, 16, 8);

  frag_a abf;
  frag_b bbf;
  load_a(abf, &m->a16[0][0], 16, 1, 16, 16);
  load_b(bbf, &m->b16[0][0], 16, 1, 8, 16);
  frag_c<float> cbf[1][1];
  fill(cbf, 0.0f);
  mma<croq::bf16>(cbf[0][0], abf, bbf);
  store_c(cbf[0][0], &m->dbf[0][0], 8, 1, 16, 8);

  // 1024 + 0.5 * 0.5: f32 keeps 1024.25, f16 (ulp 1 at 1024) rounds to 1024.
  frag_a one;
  frag_b half_b;
  const croq::f16 zero(0.0f), h(0.5f);
  for (int e = 0; e < 4; ++e) {
    one.r[e] = pack2(a_row(lane_id(), 2 * e) == 0 && a_col(lane_id(), 2 * e) == 0 ? h : zero, zero);
  }
  for (int e = 0; e < 2; ++e) half_b.r[e] = pack2(b_row(lane_id(), 2 * e) == 0 && b_col(lane_id(), 2 * e) == 0 ? h : zero, zero);
  frag_c<float> r32[1][1];
  fill(r32, 1024.0f);
  mma<croq::f16>(r32[0][0], one, half_b);
  store_c(r32[0][0], &m->rounding32[0][0], 8, 1, 16, 8);
  frag_c<croq::f16> r16[1][1];
  fill(r16, 1024.0f);
  mma<croq::f16>(r16[0][0], one, half_b);
  store_c(r16[0][0], &m->rounding16[0][0], 8, 1, 16, 8);
}

void test_mma() {
  auto* m = new MmaData();
  croq::set_random_seed(7);
  auto r = croq::make_spandata<float>(16, 16);
  r.fill_random(-1.0f, 1.0f);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 16; ++k) {
      m->a[i][k] = croq::f16(r[i][k]);
      m->at[k][i] = m->a[i][k];
      m->b[i][k] = croq::f16(r[k][i] * 0.5f);
      if (i < 8) m->bt[k][i] = m->b[i][k];
      m->a16[i][k] = croq::bf16(r[i][k]);
      if (i < 8) m->b16[i][k] = croq::bf16(r[k][i] * 0.25f);
    }
  m->layouts_equal = 1;
  croq::cpu::launch(mma_kernel, "mma_kernel", dim3(1), dim3(32), 0, m);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(m->layouts_equal == 1);
  double err32 = 0, err16 = 0, errbf = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double ref = 0.5, refbf = 0;
      for (int k = 0; k < 16; ++k) {
        ref += static_cast<double>(static_cast<float>(m->a[i][k])) * static_cast<float>(m->b[j][k]);
        refbf += static_cast<double>(static_cast<float>(m->a16[i][k])) * static_cast<float>(m->b16[j][k]);
      }
      err32 = std::fmax(err32, std::fabs(m->d32[i][j] - ref));
      // An f16 accumulator holds the f16 nearest to the f32 result.
      err16 = std::fmax(err16, std::fabs(static_cast<float>(m->d16[i][j]) - static_cast<float>(croq::f16(m->d32[i][j]))));
      errbf = std::fmax(errbf, std::fabs(m->dbf[i][j] - refbf));
    }
  CHECK(err32 < 1e-5);
  CHECK(err16 == 0.0);
  CHECK(errbf < 1e-5);
  CHECK(m->rounding32[0][0] == 1024.25f);
  CHECK(static_cast<float>(m->rounding16[0][0]) == 1024.0f);
  CHECK(m->rounding32[1][1] == 1024.0f);
  delete m;
}

// ---- warpgroup MMA ----------------------------------------------------------------------

// Two warpgroups; warpgroup g multiplies rows [64 g, 64 g + 64) of A [128 x 32]
// by B [24 x 32] (rows 20..23 outside the source: zero) in two k16 steps.
struct WgmmaData {
  croq::f16 a[128][32], b[24][32];
  croq::bf16 a16[128][32], b16[24][32];
  alignas(1024) croq::f16 as[128 * 32];
  alignas(1024) croq::f16 bs[24 * 32];
  alignas(1024) croq::bf16 as16[128 * 32];
  alignas(1024) croq::bf16 bs16[24 * 32];
  float d32[128][24];
  croq::f16 d16[128][24];
  float dbf[128][24];
};

void wgmma_kernel(WgmmaData* m) {
  using namespace croq::wgmma;
  const int rank = static_cast<int>(threadIdx.x);
  const int g = rank / 128;
  copy_tile_swz<croq::f16, 128, 32, 256, 64>(m->as, 128, 0, 0, &m->a[0][0], 32, 1, 128, 32, rank);
  cp_async_tile_swz<croq::f16, 24, 32, 256, 64>(m->bs, 24, 0, 0, &m->b[0][0], 32, 1, 20, 32, rank);
  // Element by element: a source whose rows are not 16-byte multiples.
  copy_tile_swz<croq::bf16, 128, 32, 256, 64>(m->as16, 128, 0, 0, &m->a16[0][0], 32, 1, 128, 32, rank);
  copy_tile_swz<croq::bf16, 24, 31, 256, 64>(m->bs16, 24, 0, 0, &m->b16[0][0], 32, 1, 20, 31, rank);
  copy_tile_swz<croq::bf16, 24, 1, 256, 64>(m->bs16, 24, 0, 31, &m->b16[0][31], 32, 1, 20, 1, rank);
  croq::cp_async_commit();
  croq::cp_async_wait_dynamic(0);
  __syncthreads();

  accumulator_t<24, float> c32;
  accumulator_t<24, croq::f16> c16;
  accumulator_t<24, float> cbf;
  fill<24, float>(c32, 0.5f);
  fill<24, croq::f16>(c16, 0.5f);
  fill<24, float>(cbf, 0.0f);
  fence_operands(c32);
  fence();
  for (int ks = 0; ks < 2; ++ks) {
    mma_ss<24, float, croq::f16>(c32, desc_at<64, croq::f16>(m->as, 128, 64 * g, 16 * ks),
                                 desc_at<64, croq::f16>(m->bs, 24, 0, 16 * ks));
    mma_ss<24, croq::f16, croq::f16>(c16, desc_at<64, croq::f16>(m->as, 128, 64 * g, 16 * ks),
                                     desc_at<64, croq::f16>(m->bs, 24, 0, 16 * ks));
    mma_ss<24, float, croq::bf16>(cbf, desc_at<64, croq::bf16>(m->as16, 128, 64 * g, 16 * ks),
                                  desc_at<64, croq::bf16>(m->bs16, 24, 0, 16 * ks));
  }
  commit_group();
  wait_group<0>();
  store_acc<24, float>(c32, &m->d32[64 * g][0], 24, 1, 64, 24);
  store_acc<24, croq::f16>(c16, &m->d16[64 * g][0], 24, 1, 64, 24);
  store_acc<24, float>(cbf, &m->dbf[64 * g][0], 24, 1, 64, 24);
}

void test_wgmma() {
  auto* m = new WgmmaData();
  croq::set_random_seed(11);
  auto r = croq::make_spandata<float>(152, 32);
  r.fill_random(-1.0f, 1.0f);
  for (int i = 0; i < 128; ++i)
    for (int k = 0; k < 32; ++k) {
      m->a[i][k] = croq::f16(r[i][k]);
      m->a16[i][k] = croq::bf16(r[i][k]);
    }
  for (int j = 0; j < 24; ++j)
    for (int k = 0; k < 32; ++k) {
      m->b[j][k] = croq::f16(r[128 + j][k]);
      m->b16[j][k] = croq::bf16(r[128 + j][k]);
    }
  std::memset(m->d32, 0xFF, sizeof(m->d32));
  croq::cpu::launch(wgmma_kernel, "wgmma_kernel", dim3(1), dim3(256), 0, m);
  CHECK(cudaGetLastError() == cudaSuccess);
  // The tiles hold the swizzled layout, zero past the source.
  bool layout = true;
  for (int i = 0; i < 128; ++i)
    for (int k = 0; k < 32; ++k)
      layout = layout && bits(m->as[croq::wgmma::swz_index<64, croq::f16>(i, k, 128)]) == bits(m->a[i][k]);
  for (int j = 0; j < 24; ++j)
    for (int k = 0; k < 32; ++k) {
      const float want = j < 20 ? static_cast<float>(m->b[j][k]) : 0.0f;
      layout = layout && static_cast<float>(m->bs[croq::wgmma::swz_index<64, croq::f16>(j, k, 24)]) == want;
    }
  CHECK(layout);
  CHECK((croq::wgmma::swz_index<128, croq::f16>(1, 0, 64) == 72));  // row 1: chunk 0 ^ 1
  double err32 = 0, err16 = 0, errbf = 0;
  for (int i = 0; i < 128; ++i)
    for (int j = 0; j < 24; ++j) {
      double ref = 0.5, refbf = 0;
      // An f16 accumulator: f32 sums over each k16 step, rounded to f16 after it.
      float s16 = 0.5f;
      for (int ks = 0; ks < 2; ++ks) {
        for (int k = 16 * ks; k < 16 * ks + 16; ++k) {
          const float bv = j < 20 ? static_cast<float>(m->b[j][k]) : 0.0f;
          const float bb = j < 20 ? static_cast<float>(m->b16[j][k]) : 0.0f;
          ref += static_cast<double>(static_cast<float>(m->a[i][k])) * bv;
          refbf += static_cast<double>(static_cast<float>(m->a16[i][k])) * bb;
          s16 += static_cast<float>(m->a[i][k]) * bv;
        }
        s16 = static_cast<float>(croq::f16(s16));
      }
      err32 = std::fmax(err32, std::fabs(m->d32[i][j] - ref));
      err16 = std::fmax(err16, std::fabs(static_cast<float>(m->d16[i][j]) - s16));
      errbf = std::fmax(errbf, std::fabs(m->dbf[i][j] - refbf));
    }
  CHECK(err32 < 1e-5);
  CHECK(err16 == 0.0);
  CHECK(errbf < 1e-5);
  delete m;
}

// ---- tile copies ----------------------------------------------------------------------

void copy_kernel(float* dst_z, float* dst_keep, const float* src, croq::f16* hdst, const croq::f16* hsrc) {
  const int rank = threadIdx.x;
  // A 4 x 8 tile; the source has 3 x 5 valid elements, the destination 4 x 6.
  croq::copy_tile<float, 4, 8, 3, true>(dst_z, 8, 1, 4, 6, src, 8, 1, 3, 5, rank);
  croq::copy_tile<float, 4, 8, 3, false>(dst_keep, 8, 1, 4, 6, src, 8, 1, 3, 5, rank);
  // 16-byte path of an asynchronous copy: cp.async zero-fills even without ZFILL.
  croq::cp_async_tile<croq::f16, 2, 16, 3, false>(hdst, 16, 1, 2, 16, hsrc, 16, 1, 2, 12, rank);
  croq::cp_async_commit();
  croq::cp_async_wait_dynamic(0);
}

void test_copies() {
  float* src;
  float* dz;
  float* dk;
  croq::f16* hs;
  croq::f16* hd;
  CHECK(cudaMalloc(&src, 32 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMalloc(&dz, 32 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMalloc(&dk, 32 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMalloc(&hs, 32 * sizeof(croq::f16)) == cudaSuccess);
  CHECK(cudaMalloc(&hd, 32 * sizeof(croq::f16)) == cudaSuccess);
  CHECK(reinterpret_cast<std::uintptr_t>(src) % 256 == 0);
  for (int i = 0; i < 32; ++i) {
    src[i] = static_cast<float>(i + 1);
    hs[i] = croq::f16(static_cast<float>(i + 1));
  }
  CHECK(cudaMemset(dz, 0xFF, 32 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemcpy(dk, dz, 32 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(cudaMemset(hd, 0xFF, 32 * sizeof(croq::f16)) == cudaSuccess);
  croq::cpu::launch(copy_kernel, "copy_kernel", dim3(1), dim3(3), 0, dz, dk, src, hd, hs);
  bool ok = true;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) {
      const float z = dz[r * 8 + c], k = dk[r * 8 + c];
      if (c >= 6) {
        ok = ok && std::isnan(z) && std::isnan(k);  // outside the destination: untouched
      } else if (r < 3 && c < 5) {
        ok = ok && z == src[r * 8 + c] && k == src[r * 8 + c];
      } else {
        ok = ok && z == 0.0f && std::isnan(k);  // outside the source: zero or untouched
      }
    }
  CHECK(ok);
  ok = true;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 16; ++c)
      ok = ok && static_cast<float>(hd[r * 16 + c]) == (c < 12 ? static_cast<float>(hs[r * 16 + c]) : 0.0f);
  CHECK(ok);
  cudaFree(src);
  cudaFree(dz);
  cudaFree(dk);
  cudaFree(hs);
  cudaFree(hd);
}

// ---- launch errors, events --------------------------------------------------------------

void empty_kernel() {}

void test_launch_errors() {
  croq::cpu::launch(empty_kernel, "empty_kernel", dim3(1), dim3(2048), 0);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);
  croq::cpu::launch(empty_kernel, "empty_kernel", dim3(1), dim3(32), 64 * 1024);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024) == cudaSuccess);
  croq::cpu::launch(empty_kernel, "empty_kernel", dim3(1), dim3(32), 64 * 1024);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024) ==
        cudaErrorInvalidValue);
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  cudaEvent_t start = nullptr, stop = nullptr;
  CHECK(cudaEventCreate(&start) == cudaSuccess);
  CHECK(cudaEventCreate(&stop) == cudaSuccess);
  cudaEventRecord(start);
  croq::cpu::launch(empty_kernel, "empty_kernel", dim3(64), dim3(256), 0);
  cudaEventRecord(stop);
  float ms = -1;
  CHECK(cudaEventSynchronize(stop) == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess && ms >= 0.0f);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);

  // Round-robin timing: every launch runs once per round, in order; an empty
  // launch is skipped and gets no times.
  std::vector<int> order;
  std::vector<std::function<cudaError_t()>> launches = {
      [&] {
        order.push_back(0);
        croq::cpu::launch(empty_kernel, "empty_kernel", dim3(4), dim3(32), 0);
        return cudaGetLastError();
      },
      std::function<cudaError_t()>(),
      [&] {
        order.push_back(2);
        return cudaSuccess;
      }};
  const std::vector<std::vector<float>> times = croq::time_round_robin(launches, 3);
  CHECK(times.size() == 3 && times[0].size() == 3 && times[1].empty() && times[2].size() == 3);
  CHECK((order == std::vector<int>{0, 2, 0, 2, 0, 2}));
  bool nonnegative = true;
  for (const std::vector<float>& t : times)
    for (float v : t) nonnegative = nonnegative && v >= 0.0f;
  CHECK(nonnegative);
}

// ---- errors that would hang a GPU ------------------------------------------------------

void deadlock_kernel() {
  if (threadIdx.x >= 16) return;
  __syncthreads();
}

void divergent_kernel() {
  if (threadIdx.x % 32 == 0)
    __syncwarp();
  else
    (void)__shfl_sync(0xFFFFFFFFu, 1, 0);
}

void partial_warpgroup_wgmma_kernel() {
  croq::wgmma::accumulator_t<8, float> c;
  croq::wgmma::fill<8, float>(c, 0.0f);
  static croq::f16 tile[64 * 16];
  croq::wgmma::mma_ss<8, float, croq::f16>(c, croq::wgmma::desc_at<32, croq::f16>(tile, 64, 0, 0),
                                           croq::wgmma::desc_at<32, croq::f16>(tile, 64, 0, 0));
}

void partial_warp_mma_kernel() {
  croq::mma::frag_a a{};
  croq::mma::frag_b b{};
  croq::mma::frag_c<float> c{};
  croq::mma::mma<croq::f16>(c, a, b);
}

// The cases above, each run in a child process (a fresh exec of this test:
// an OpenMP runtime does not survive fork).
void run_child_case(const std::string& name) {
  if (name == "deadlock") croq::cpu::launch(deadlock_kernel, "deadlock_kernel", dim3(2), dim3(32), 0);
  if (name == "divergent") croq::cpu::launch(divergent_kernel, "divergent_kernel", dim3(1), dim3(64), 0);
  if (name == "partial-warp-mma")
    croq::cpu::launch(partial_warp_mma_kernel, "partial_warp_mma_kernel", dim3(1), dim3(16), 0);
  if (name == "partial-warpgroup-wgmma")
    croq::cpu::launch(partial_warpgroup_wgmma_kernel, "partial_warpgroup_wgmma_kernel", dim3(1), dim3(96), 0);
}

// True when `self --child NAME` exits with status 1 and its stderr contains
// every string of `expected`.
bool fails_with(const char* self, const char* name, std::vector<const char*> expected) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    close(fds[1]);
    execl(self, self, "--child", name, static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  close(fds[1]);
  std::string err;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;) err.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 1;
  for (const char* e : expected) ok = ok && err.find(e) != std::string::npos;
  if (!ok) std::printf("child `%s` stderr:\n%s\n", name, err.c_str());
  return ok;
}

void test_hangs_are_errors(const char* self) {
  CHECK(fails_with(self, "deadlock",
                   {"croq cpu runtime: deadlock in kernel `deadlock_kernel`, block (",
                    "16 of 32 threads wait at __syncthreads() (", "cpu_runtime_test.cpp:",
                    "16 of 32 threads have returned from the kernel: threads 16-31"}));
  CHECK(fails_with(self, "divergent",
                   {"croq cpu runtime: warp divergence in kernel `divergent_kernel`", "__syncwarp()",
                    "__shfl_sync()"}));
  CHECK(fails_with(self, "partial-warp-mma",
                   {"needs a full warp of 32 threads, but warp 0 of the block has only 16"}));
  CHECK(fails_with(self, "partial-warpgroup-wgmma",
                   {"croq::wgmma::mma_ss (", "in kernel `partial_warpgroup_wgmma_kernel` needs a full warpgroup of "
                    "128 threads, but warpgroup 0 of the block has only 96"}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--child") {
    run_child_case(argv[2]);
    return 0;
  }
  test_conversions();
  test_threads();
  test_warps();
  test_mma();
  test_wgmma();
  test_copies();
  test_launch_errors();
  test_hangs_are_errors("/proc/self/exe");
  if (failures != 0) {
    std::printf("FAIL: %d checks failed\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
