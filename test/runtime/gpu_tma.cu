// gpu_tma.cu: TMA through the runtime (tensor maps built on the host with
// croq::tma::make_tensor_map_2d/3d, loads completed on an mbarrier, stores
// through bulk groups). Needs an sm_90 GPU (H100/H200).
//
// The 2D tensor is f16 [100][72] inside a [128][96] allocation (row stride 96
// elements), so memory past the tensor's end holds real, non-zero data: a
// load that ignored the tensor's extent would read it, a store that ignored
// it would overwrite it.
//   load, no swizzle    box [64][32] at (64, 48): rows >= 100 and columns
//                       >= 72 must arrive as 0; box [16][32] at (-3, -8):
//                       negative coordinates too.
//   load, swizzled      box [16][W/2] at (90, 64) for W = 32, 64, 128 bytes:
//                       the shared tile must equal the tensor permuted by
//                       croq::swizzle_offset, with zeros out of bounds.
//   load, 3D            f32 [3][20][40], box [2][16][8] at (1, 10, 36).
//   store, clipping     box [64][32] at (64, 48) and, 128B-swizzled, [16][64]
//                       at (90, 40), into a poisoned allocation: exactly the
//                       in-tensor part of the box is written, everything else
//                       keeps the poison.
// Shared tiles are poisoned (0xFF bytes) before each load so that "not
// written" and "zero-filled" differ. All comparisons are bit-exact.
//
// Prints one PASS/FAIL line per case; exits 1 on failure.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "croq/croq.h"

namespace {

constexpr int kRows = 100, kCols = 72;            // the 2D tensor
constexpr int kAllocRows = 128, kAllocCols = 96;  // its allocation
constexpr int kTileBytes = 16384;

__device__ void poison_tile(std::uint8_t* tile, int bytes) {
  for (int i = static_cast<int>(threadIdx.x); i < bytes; i += blockDim.x) tile[i] = 0xFF;
  croq::fence_proxy_async_shared();  // order these generic writes before the TMA writes
}

// Loads one box (2D: c0 = row, c1 = col; 3D: c0..c2) into a poisoned tile and
// copies the raw tile bytes out.
template <int Rank>
__global__ void tma_load_kernel(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2,
                                std::uint32_t box_bytes, std::uint8_t* out) {
  __shared__ alignas(1024) std::uint8_t tile[kTileBytes];
  __shared__ alignas(8) std::uint64_t bar;
  poison_tile(tile, static_cast<int>(box_bytes));
  if (threadIdx.x == 0) {
    croq::mbarrier::init(&bar, 1);
    croq::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    croq::mbarrier::arrive_expect_tx(&bar, box_bytes);
    if constexpr (Rank == 2)
      croq::tma::load_2d(tile, &map, &bar, c0, c1);
    else
      croq::tma::load_3d(tile, &map, &bar, c0, c1, c2);
  }
  croq::mbarrier::wait_parity(&bar, 0);
  for (int i = static_cast<int>(threadIdx.x); i < static_cast<int>(box_bytes); i += blockDim.x)
    out[i] = tile[i];
  __syncthreads();
  if (threadIdx.x == 0) croq::mbarrier::inval(&bar);
}

// Stores `bytes` of prepared shared-tile content as one box at (row, col).
__global__ void tma_store_kernel(const __grid_constant__ CUtensorMap map, const std::uint8_t* tile_content,
                                 int bytes, int row, int col) {
  __shared__ alignas(1024) std::uint8_t tile[kTileBytes];
  for (int i = static_cast<int>(threadIdx.x); i < bytes; i += blockDim.x) tile[i] = tile_content[i];
  croq::fence_proxy_async_shared();  // generic writes -> TMA (async proxy) reads
  __syncthreads();
  if (threadIdx.x == 0) {
    croq::tma::store_2d(&map, tile, row, col);
    croq::tma::commit_group();
    croq::tma::wait_group_read<0>();
    croq::tma::wait_group<0>();
  }
}

std::uint16_t bits_of(croq::f16 x) {
  std::uint16_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// A random non-zero f16 value.
croq::f16 random_f16(croq::spanned_data<croq::f16, 1>& scratch, std::size_t& next) {
  if (next == scratch.element_count()) {
    scratch.fill_random(-1.0f, 1.0f);
    next = 0;
  }
  croq::f16 x = scratch[next++];
  return croq::to_f32(x) == 0.0f ? croq::utils::from_f32<croq::f16>(0.5f) : x;
}

bool report(const char* name, int bad) {
  std::printf("%s %s (%d mismatching elements)\n", bad == 0 ? "PASS" : "FAIL", name, bad);
  return bad == 0;
}

// Checks a loaded 2D f16 box: element (r, c) of the box sits at the
// swizzled offset of logical byte r * row_bytes + 2 * c.
bool check_load_2d(const char* name, const croq::spanned_data<croq::f16, 2>& alloc, const CUtensorMap& map,
                   int row0, int col0, int box_rows, int box_cols, croq::swizzle_mode mode) {
  const std::uint32_t row_bytes = static_cast<std::uint32_t>(box_cols) * 2;
  const std::uint32_t box_bytes = row_bytes * static_cast<std::uint32_t>(box_rows);
  croq::device_buffer<std::uint8_t> out(box_bytes);
  out.poison();
  tma_load_kernel<2><<<1, 128>>>(map, row0, col0, 0, box_bytes, out.get());
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint8_t> tile(box_bytes);
  out.copy_to_host(tile.data(), box_bytes);

  int bad = 0;
  for (int r = 0; r < box_rows; ++r) {
    for (int c = 0; c < box_cols; ++c) {
      const std::uint32_t offset = croq::swizzle_offset(
          mode, static_cast<std::uint32_t>(r) * row_bytes + 2u * static_cast<std::uint32_t>(c));
      std::uint16_t got;
      std::memcpy(&got, &tile[offset], sizeof got);
      const int R = row0 + r, C = col0 + c;
      const bool inside = R >= 0 && R < kRows && C >= 0 && C < kCols;
      const std::uint16_t want = inside ? bits_of(alloc[R][C]) : 0;
      if (got != want) {
        if (bad < 5) std::printf("  %s: box (%d, %d) = 0x%04x, expected 0x%04x\n", name, r, c, got, want);
        ++bad;
      }
    }
  }
  return report(name, bad);
}

bool test_loads_2d() {
  auto alloc = croq::make_spandata<croq::f16>(kAllocRows, kAllocCols);
  auto scratch = croq::make_spandata<croq::f16>(4096);
  std::size_t next = scratch.element_count();
  for (std::size_t i = 0; i < alloc.element_count(); ++i) alloc.data()[i] = random_f16(scratch, next);
  croq::device_buffer<croq::f16> d_alloc(alloc.element_count());
  d_alloc.copy_from_host(alloc.data(), alloc.element_count());

  bool ok = true;
  const auto plain = croq::tma::make_tensor_map_2d(d_alloc.get(), kRows, kCols, 64, 32,
                                                   croq::swizzle_mode::none, kAllocCols);
  ok &= check_load_2d("load_2d box [64][32] at (64, 48), past both ends", alloc, plain, 64, 48, 64, 32,
                      croq::swizzle_mode::none);
  const auto small = croq::tma::make_tensor_map_2d(d_alloc.get(), kRows, kCols, 16, 32,
                                                   croq::swizzle_mode::none, kAllocCols);
  ok &= check_load_2d("load_2d box [16][32] at (-3, -8), negative coordinates", alloc, small, -3, -8, 16, 32,
                      croq::swizzle_mode::none);
  const struct {
    croq::swizzle_mode mode;
    const char* name;
  } swizzles[] = {{croq::swizzle_mode::b32, "load_2d swizzle 32B box [16][16] at (90, 64)"},
                  {croq::swizzle_mode::b64, "load_2d swizzle 64B box [16][32] at (90, 64)"},
                  {croq::swizzle_mode::b128, "load_2d swizzle 128B box [16][64] at (90, 64)"}};
  for (const auto& s : swizzles) {
    const int box_cols = static_cast<int>(croq::swizzle_bytes(s.mode)) / 2;
    const auto map = croq::tma::make_tensor_map_2d(d_alloc.get(), kRows, kCols, 16,
                                                   static_cast<std::uint32_t>(box_cols), s.mode, kAllocCols);
    ok &= check_load_2d(s.name, alloc, map, 90, 64, 16, box_cols, s.mode);
  }
  return ok;
}

bool test_load_3d() {
  constexpr int D0 = 3, D1 = 20, D2 = 40;
  constexpr int B0 = 2, B1 = 16, B2 = 8;
  constexpr int c0 = 1, c1 = 10, c2 = 36;
  auto t = croq::make_spandata<float>(D0, D1, D2);
  t.fill_random(1.0f, 2.0f);  // never zero
  croq::device_buffer<float> d_t(t.element_count());
  d_t.copy_from_host(t.data(), t.element_count());
  const auto map = croq::tma::make_tensor_map_3d(d_t.get(), D0, D1, D2, B0, B1, B2);

  constexpr std::uint32_t box_bytes = B0 * B1 * B2 * sizeof(float);
  croq::device_buffer<std::uint8_t> out(box_bytes);
  out.poison();
  tma_load_kernel<3><<<1, 128>>>(map, c0, c1, c2, box_bytes, out.get());
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> box(B0 * B1 * B2);
  out.copy_to_host(reinterpret_cast<std::uint8_t*>(box.data()), box_bytes);

  int bad = 0;
  for (int i = 0; i < B0; ++i)
    for (int j = 0; j < B1; ++j)
      for (int k = 0; k < B2; ++k) {
        const bool inside = c0 + i < D0 && c1 + j < D1 && c2 + k < D2;
        const float want = inside ? t[c0 + i][c1 + j][c2 + k] : 0.0f;
        const float got = box[(i * B1 + j) * B2 + k];
        if (std::memcmp(&got, &want, sizeof got) != 0) {
          if (bad < 5) std::printf("  load_3d: box (%d, %d, %d) = %g, expected %g\n", i, j, k, got, want);
          ++bad;
        }
      }
  return report("load_3d f32 box [2][16][8] at (1, 10, 36), past the end", bad);
}

bool check_store_2d(const char* name, int row0, int col0, int box_rows, int box_cols,
                    croq::swizzle_mode mode) {
  auto scratch = croq::make_spandata<croq::f16>(4096);
  std::size_t next = scratch.element_count();
  auto box = croq::make_spandata<croq::f16>(box_rows, box_cols);
  for (std::size_t i = 0; i < box.element_count(); ++i) box.data()[i] = random_f16(scratch, next);

  // The shared tile as TMA expects it: rows of box_cols elements, swizzled.
  const std::uint32_t row_bytes = static_cast<std::uint32_t>(box_cols) * 2;
  std::vector<std::uint8_t> tile(row_bytes * static_cast<std::uint32_t>(box_rows));
  for (int r = 0; r < box_rows; ++r)
    for (int c = 0; c < box_cols; ++c)
      std::memcpy(&tile[croq::swizzle_offset(mode, static_cast<std::uint32_t>(r) * row_bytes + 2u * c)],
                  &box[r][c], 2);
  croq::device_buffer<std::uint8_t> d_tile(tile.size());
  d_tile.copy_from_host(tile.data(), tile.size());

  croq::device_buffer<croq::f16> d_alloc(kAllocRows * kAllocCols);
  d_alloc.poison();
  const auto map =
      croq::tma::make_tensor_map_2d(d_alloc.get(), kRows, kCols, static_cast<std::uint32_t>(box_rows),
                                    static_cast<std::uint32_t>(box_cols), mode, kAllocCols);
  tma_store_kernel<<<1, 128>>>(map, d_tile.get(), static_cast<int>(tile.size()), row0, col0);
  CROQ_CUDA_CHECK(cudaGetLastError());
  CROQ_CUDA_CHECK(cudaDeviceSynchronize());
  auto alloc = croq::make_spandata<croq::f16>(kAllocRows, kAllocCols);
  d_alloc.copy_to_host(alloc.data(), alloc.element_count());

  int bad = 0;
  for (int R = 0; R < kAllocRows; ++R)
    for (int C = 0; C < kAllocCols; ++C) {
      const bool in_box = R >= row0 && R < row0 + box_rows && C >= col0 && C < col0 + box_cols;
      const bool written = in_box && R < kRows && C < kCols;
      const std::uint16_t want = written ? bits_of(box[R - row0][C - col0]) : 0xFFFF;
      const std::uint16_t got = bits_of(alloc[R][C]);
      if (got != want) {
        if (bad < 5) std::printf("  %s: element (%d, %d) = 0x%04x, expected 0x%04x\n", name, R, C, got, want);
        ++bad;
      }
    }
  return report(name, bad);
}

}  // namespace

int main() {
  bool ok = true;
  ok &= test_loads_2d();
  ok &= test_load_3d();
  ok &=
      check_store_2d("store_2d box [64][32] at (64, 48), clipped", 64, 48, 64, 32, croq::swizzle_mode::none);
  ok &= check_store_2d("store_2d swizzle 128B box [16][64] at (90, 40), clipped", 90, 40, 16, 64,
                       croq::swizzle_mode::b128);
  if (!ok) {
    std::printf("FAIL gpu_tma (CROQ_SEED=%llu reproduces the inputs)\n",
                static_cast<unsigned long long>(croq::random_seed()));
    return 1;
  }
  std::printf("PASS gpu_tma\n");
  return 0;
}
