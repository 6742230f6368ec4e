// croq/device/tma.h: the Tensor Memory Accelerator (sm_90): bulk tensor copies
// between global and shared memory described by a CUtensorMap, and the host
// code that builds the tensor maps.
//
// Coordinates and shapes in this API are given outermost first, like the
// DSL's row-major shapes: load_2d(dst, map, bar, row, col), a [rows][cols]
// tensor, a [box_rows][box_cols] box. (PTX and the driver API list the
// innermost dimension first; the wrappers reorder.) Coordinates are element
// indices of the box's first element and may be negative or run past the
// tensor's end: elements outside the tensor are zero-filled on load and
// skipped on store.
//
// Device side (one thread issues; `map` points at a `const __grid_constant__
// CUtensorMap` kernel parameter or at a CUtensorMap in global memory):
//   load_2d / load_3d   cp.async.bulk.tensor.{2d,3d}.shared::cluster.global.mbarrier::complete_tx::bytes
//                         [dst], [map, {c...}], [bar];
//                       completes by delivering the box's bytes to the mbarrier `bar` (see
//                       croq/device/mbarrier.h: arrive_expect_tx(bar, box_bytes) first).
//                       `dst` is 128-byte aligned (1024 for swizzled boxes).
//   *_hint variants     add .L2::cache_hint with a policy from evict_first_policy() /
//                       evict_last_policy() (createpolicy.fractional.L2::evict_*.b64).
//   store_2d / store_3d cp.async.bulk.tensor.{2d,3d}.global.shared::cta.bulk_group [map, {c...}], [src];
//                       make the shared tile visible first: fence_proxy_async_shared()
//                       (croq/device/fence.h) in every writing thread, then a barrier.
//   commit_group()      cp.async.bulk.commit_group;        closes this thread's bulk group
//   wait_group<N>()     cp.async.bulk.wait_group N;        the copies have completed
//   wait_group_read<N>() cp.async.bulk.wait_group.read N;  the shared source may be reused
//   prefetch_descriptor(map)  prefetch.tensormap [map];
//
// Host side:
//   make_tensor_map_2d<T>(ptr, rows, cols, box_rows, box_cols, swizzle, row_stride)
//   make_tensor_map_3d<T>(ptr, d0, d1, d2, box0, box1, box2, swizzle, stride0, stride1)
//   make_tensor_map<T, Rank>(ptr, shape, strides, box, swizzle)
// build a CUtensorMap with cuTensorMapEncodeTiled, which is looked up through
// cudaGetDriverEntryPoint{ByVersion} so programs need not link -lcuda.
// Strides are in elements (default: dense row-major). The maps use
// interleave none, L2 promotion 128B and OOB fill "none", which fills
// out-of-bounds elements with zeros. Requirements (checked, with a message):
// the global address is 16-byte aligned, strides are multiples of 16 bytes,
// box extents are 1..256, the innermost box extent is a multiple of 16
// bytes, and with a swizzle it is at most the swizzle width (32/64/128 B).
//   try_tensor_map_2d<T>(ptr, rows, cols, box_rows, box_cols, swizzle, &ok)
// the same 2-D map, or `ok` false when the tensor breaks those rules;
//   staged_tensor_map_2d<T>(..., scratch, stream, &ok)
// for a tensor the kernels only read: when it breaks them, a copy with rows
// 128 bytes apart is made in `scratch` (a staging<T>) on `stream` and
// described instead.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "croq/device/arch.h"
#include "croq/device/swizzle.h"
#include "croq/host.h"
#include "croq/types.h"

namespace croq {
namespace tma {

// ---- device side ----------------------------------------------------------------

CROQ_DEVICE void load_2d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int row, int col) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(cvta_shared(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(cvta_shared(bar))
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// load_2d into the same shared offset of every block of the cluster in
// `cta_mask`, completing the bytes on each block's mbarrier at `bar`'s offset.
CROQ_DEVICE void load_2d_multicast(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int row, int col,
                                   std::uint16_t cta_mask) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(cvta_shared(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(cvta_shared(bar)), "h"(cta_mask)
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void load_3d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1, int c2) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(cvta_shared(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c2), "r"(c1), "r"(c0), "r"(cvta_shared(bar))
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// An L2 eviction policy for the *_hint loads: evict these lines first.
CROQ_DEVICE std::uint64_t evict_first_policy() {
  std::uint64_t policy = 0;
#if CROQ_SM90_ENABLED
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
  return policy;
}

// An L2 eviction policy for the *_hint loads: keep these lines longest.
CROQ_DEVICE std::uint64_t evict_last_policy() {
  std::uint64_t policy = 0;
#if CROQ_SM90_ENABLED
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
  return policy;
}

CROQ_DEVICE void load_2d_hint(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int row, int col,
                              std::uint64_t policy) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(cvta_shared(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(col), "r"(row), "r"(cvta_shared(bar)), "l"(policy)
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void load_3d_hint(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0, int c1,
                              int c2, std::uint64_t policy) {
#if CROQ_SM90_ENABLED
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(cvta_shared(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c2), "r"(c1), "r"(c0), "r"(cvta_shared(bar)), "l"(policy)
      : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void store_2d(const CUtensorMap* map, const void* smem_src, int row, int col) {
#if CROQ_SM90_ENABLED
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(col), "r"(row), "r"(cvta_shared(smem_src))
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void store_3d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2) {
#if CROQ_SM90_ENABLED
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(c2), "r"(c1), "r"(c0), "r"(cvta_shared(smem_src))
               : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void commit_group() {
#if CROQ_SM90_ENABLED
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

template <int N>
CROQ_DEVICE void wait_group() {
  static_assert(N >= 0, "cp.async.bulk.wait_group takes a non-negative count");
#if CROQ_SM90_ENABLED
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

template <int N>
CROQ_DEVICE void wait_group_read() {
  static_assert(N >= 0, "cp.async.bulk.wait_group.read takes a non-negative count");
#if CROQ_SM90_ENABLED
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

CROQ_DEVICE void prefetch_descriptor(const CUtensorMap* map) {
#if CROQ_SM90_ENABLED
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
#else
  CROQ_UNSUPPORTED_ARCH();
#endif
}

// ---- host side --------------------------------------------------------------------

// The tensor-map element type for T; 1-, 2-, 4- and 8-byte types without a
// float type of their own are copied as unsigned integers of the same size.
template <typename T>
constexpr CUtensorMapDataType data_type() {
  if constexpr (std::is_same_v<T, f16>)
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, bf16>)
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>)
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if constexpr (std::is_same_v<T, double>)
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  else if constexpr (std::is_same_v<T, s32>)
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  else if constexpr (std::is_same_v<T, s64>)
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  else if constexpr (sizeof(T) == 1)
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  else if constexpr (sizeof(T) == 2)
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  else if constexpr (sizeof(T) == 4)
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  else {
    static_assert(sizeof(T) == 8, "TMA element types are 1, 2, 4 or 8 bytes");
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
}

inline CUtensorMapSwizzle swizzle_enum(swizzle_mode mode) {
  switch (mode) {
    case swizzle_mode::b32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case swizzle_mode::b64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case swizzle_mode::b128: return CU_TENSOR_MAP_SWIZZLE_128B;
    case swizzle_mode::none: break;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

namespace detail {

// cuTensorMapEncodeTiled from the driver, found at run time.
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    CROQ_CUDA_CHECK(
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
#else
    CROQ_CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &entry, cudaEnableDefault, &found));
#endif
    croq_assert(found == cudaDriverEntryPointSuccess && entry != nullptr,
                "the CUDA driver does not provide cuTensorMapEncodeTiled (TMA needs CUDA 12 and sm_90)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return fn;
}

}  // namespace detail

// A tiled tensor map over a Rank-dimensional tensor at `ptr` (device memory).
// shape, strides (in elements; the last must be 1) and box are outermost first.
template <typename T, std::size_t Rank>
CUtensorMap make_tensor_map(const T* ptr, const std::array<std::uint64_t, Rank>& shape,
                            const std::array<std::uint64_t, Rank>& strides,
                            const std::array<std::uint32_t, Rank>& box,
                            swizzle_mode swizzle = swizzle_mode::none) {
  static_assert(Rank >= 1 && Rank <= 5, "TMA tensors have 1 to 5 dimensions");
  const auto fail = [](const std::string& msg) { croq_assert(false, "make_tensor_map: " + msg); };
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) fail("the global address is not 16-byte aligned");
  if (strides[Rank - 1] != 1) fail("the innermost stride must be 1 element");

  cuuint64_t global_dim[Rank];
  cuuint64_t global_strides[Rank > 1 ? Rank - 1 : 1] = {0};
  cuuint32_t box_dim[Rank];
  cuuint32_t element_strides[Rank];
  for (std::size_t d = 0; d < Rank; ++d) {
    const std::size_t inner = Rank - 1 - d;  // the driver lists the innermost dimension first
    if (shape[d] == 0) fail("dimension " + std::to_string(d) + " has extent 0");
    if (box[d] == 0 || box[d] > 256)
      fail("box extent " + std::to_string(box[d]) + " of dimension " + std::to_string(d) +
           " is outside 1..256");
    global_dim[inner] = shape[d];
    box_dim[inner] = box[d];
    element_strides[inner] = 1;
    if (d + 1 < Rank) {
      const std::uint64_t stride_bytes = strides[d] * sizeof(T);
      if (stride_bytes % 16 != 0)
        fail("the stride of dimension " + std::to_string(d) + " is " + std::to_string(stride_bytes) +
             " bytes, not a multiple of 16");
      global_strides[inner - 1] = stride_bytes;
    }
  }
  const std::uint32_t inner_box_bytes = box[Rank - 1] * static_cast<std::uint32_t>(sizeof(T));
  if (inner_box_bytes % 16 != 0)
    fail("the innermost box extent is " + std::to_string(inner_box_bytes) + " bytes, not a multiple of 16");
  if (swizzle != swizzle_mode::none && inner_box_bytes > swizzle_bytes(swizzle))
    fail("the innermost box extent is " + std::to_string(inner_box_bytes) + " bytes, more than the " +
         std::to_string(swizzle_bytes(swizzle)) + "-byte swizzle");

  CUtensorMap map{};
  const CUresult status = detail::encode_tiled()(
      &map, data_type<T>(), static_cast<cuuint32_t>(Rank), const_cast<T*>(ptr), global_dim, global_strides,
      box_dim, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_enum(swizzle),
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) fail("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(status));
  return map;
}

// A [rows][cols] tensor (row_stride elements apart; 0 = cols) read or written
// in [box_rows][box_cols] boxes.
template <typename T>
CUtensorMap make_tensor_map_2d(const T* ptr, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows,
                               std::uint32_t box_cols, swizzle_mode swizzle = swizzle_mode::none,
                               std::uint64_t row_stride = 0) {
  return make_tensor_map<T, 2>(ptr, {rows, cols}, {row_stride != 0 ? row_stride : cols, 1},
                               {box_rows, box_cols}, swizzle);
}

// The same map when the hardware can use it, else a zeroed map and `ok`
// false: the global address must be 16-byte aligned and the row stride a
// multiple of 16 bytes (a [M][4095] f16 tensor cannot be described). The
// code croqc generates copies such tensors another way.
template <typename T>
CUtensorMap try_tensor_map_2d(const T* ptr, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows,
                              std::uint32_t box_cols, swizzle_mode swizzle, bool* ok) {
  *ok = reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && (cols * sizeof(T)) % 16 == 0;
  if (!*ok) {
    CUtensorMap none{};
    return none;
  }
  return make_tensor_map_2d<T>(ptr, rows, cols, box_rows, box_cols, swizzle);
}

// Device scratch holding a staged copy of a tensor; freed on its stream when
// it goes out of scope, after the work the wrapper enqueued there.
template <typename T>
class staging {
 public:
  staging() = default;
  staging(const staging&) = delete;
  staging& operator=(const staging&) = delete;
  ~staging() {
    if (ptr_ != nullptr) (void)cudaFreeAsync(ptr_, stream_);
  }
  T* data() const { return ptr_; }
  // Takes `bytes` of device memory ordered on `stream`; false when there is
  // not enough.
  bool allocate(std::size_t bytes, cudaStream_t stream) {
    void* p = nullptr;
    if (cudaMallocAsync(&p, bytes, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    ptr_ = static_cast<T*>(p);
    stream_ = stream;
    return true;
  }

 private:
  T* ptr_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

namespace detail {

// Copies `rows` rows of `row_bytes` bytes, `src_pitch` bytes apart from `src`
// (any alignment), to `dst` (16-byte aligned), `dst_pitch` bytes apart (a
// multiple of 16), a 4-byte word per thread: each destination word is cut
// from the two aligned source words around its bytes, so every access is an
// aligned, coalesced 4-byte one. Bytes past a row's end in its last word are
// padding. The words at the two ends of the source, which may hold bytes
// outside it, are read byte by byte instead: no byte outside the source is
// read.
// (A template so that every object file that includes this header may hold
// it.)
template <int = 0>
__global__ void stage_rows(unsigned char* __restrict__ dst, std::size_t dst_pitch,
                           const unsigned char* __restrict__ src, std::size_t src_pitch, std::size_t row_bytes,
                           std::size_t rows) {
  const std::size_t words = (row_bytes + 3) / 4;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(src);
  const std::uintptr_t end = begin + (rows - 1) * src_pitch + row_bytes;
  const std::size_t total = rows * words;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t r = i / words, w = i % words;
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(src) + r * src_pitch + 4 * w;
    const std::uintptr_t lo = at & ~std::uintptr_t{3};
    const unsigned shift = static_cast<unsigned>(at - lo) * 8;
    std::uint32_t value = 0;
    if (lo >= begin && lo + (shift != 0 ? 8 : 4) <= end) {
      const std::uint32_t w0 = *reinterpret_cast<const std::uint32_t*>(lo);
      const std::uint32_t w1 = shift != 0 ? *reinterpret_cast<const std::uint32_t*>(lo + 4) : 0u;
      value = __funnelshift_r(w0, w1, shift);
    } else {
      for (unsigned b = 0; b < 4 && at + b < end; ++b)
        value |= static_cast<std::uint32_t>(*reinterpret_cast<const unsigned char*>(at + b)) << (8 * b);
    }
    *reinterpret_cast<std::uint32_t*>(dst + r * dst_pitch + 4 * w) = value;
  }
}

}  // namespace detail

// The map of try_tensor_map_2d for a tensor the kernels only read. When the
// hardware cannot describe the tensor (its address or row pitch is not a
// multiple of 16 bytes), the tensor is copied on `stream`, before the work
// enqueued after this call, into `scratch` with rows 128 bytes apart, and the
// map describes the copy; `ok` is false only when no scratch could be had.
template <typename T>
CUtensorMap staged_tensor_map_2d(const T* ptr, std::uint64_t rows, std::uint64_t cols, std::uint32_t box_rows,
                                 std::uint32_t box_cols, swizzle_mode swizzle, staging<T>& scratch,
                                 cudaStream_t stream, bool* ok) {
  CUtensorMap map = try_tensor_map_2d<T>(ptr, rows, cols, box_rows, box_cols, swizzle, ok);
  if (*ok) return map;
  const std::size_t row_bytes = static_cast<std::size_t>(cols) * sizeof(T);
  const std::size_t pitch = (row_bytes + 127) / 128 * 128;
  if (!scratch.allocate(pitch * rows, stream)) return map;
  const std::size_t threads = rows * ((row_bytes + 3) / 4);
  const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((threads + 255) / 256, 8192));
  detail::stage_rows<><<<blocks, 256, 0, stream>>>(reinterpret_cast<unsigned char*>(scratch.data()), pitch,
                                                 reinterpret_cast<const unsigned char*>(ptr), row_bytes, row_bytes,
                                                 static_cast<std::size_t>(rows));
  CROQ_CUDA_CHECK(cudaGetLastError());
  *ok = true;
  return make_tensor_map_2d<T>(scratch.data(), rows, cols, box_rows, box_cols, swizzle, pitch / sizeof(T));
}

// A [d0][d1][d2] tensor (strides in elements; 0 = dense) in [box0][box1][box2] boxes.
template <typename T>
CUtensorMap make_tensor_map_3d(const T* ptr, std::uint64_t d0, std::uint64_t d1, std::uint64_t d2,
                               std::uint32_t box0, std::uint32_t box1, std::uint32_t box2,
                               swizzle_mode swizzle = swizzle_mode::none, std::uint64_t stride0 = 0,
                               std::uint64_t stride1 = 0) {
  const std::uint64_t s1 = stride1 != 0 ? stride1 : d2;
  const std::uint64_t s0 = stride0 != 0 ? stride0 : d1 * s1;
  return make_tensor_map<T, 3>(ptr, {d0, d1, d2}, {s0, s1, 1}, {box0, box1, box2}, swizzle);
}

}  // namespace tma
}  // namespace croq
