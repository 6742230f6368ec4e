// croq/sparse.h: host helpers for 2:4 structured-sparse operands (spec
// 13.5), as Croqtile programs call them (`choreo::utils::SparsePolicy*`).
//
// A 2:4 sparse A [M, K] keeps at most two nonzero elements in every group of
// four along K. A sparse MMA reads it as two tensors:
//
//   packed [M, K / 2]  the two kept elements of each group, in K order
//   meta               for each group a nibble: bits 0-1 the index (0..3)
//                      of the first kept element, bits 2-3 of the second,
//                      the first < the second
//
// The metadata layouts, for row r and group g (K elements 4g .. 4g + 3):
//
//   Sparse2to4HostPolicy<V, MetaT, META_K>::encode
//       one MetaT per META_K elements of a row: meta[r][g / (META_K / 4)]
//       holds the nibble of g at bit 4 * (g % (META_K / 4)). With META_K =
//       64 and MetaT = u32 (8-bit operands: 16 nibbles) the strip takes two
//       u32 columns, the low eight nibbles first.
//   Sparse2to4HostPolicyWGMMA<V, META_K>::encode
//       u8 [M, K / 8]: meta[r][g / 2], the even group in the low nibble.
//   ...WGMMA::prepack(meta_u8, meta_u32)
//       u32 [M, K / 32] in the order the threads of a warpgroup read it
//       (16-bit operands): for each 16-row block and 32-wide K fragment,
//       row 2i holds bytes 0-1 of rows i and i + 8 (low and high half),
//       row 2i + 1 bytes 2-3.
//   ...WGMMA::prepack_v2, prepack_v2_16bit_reorder, prepack_v2_fp8_reorder
//       the prepacked u32 values regrouped so that the lanes of a warp read
//       consecutive words: [M / 16][fragments][16] (16-bit) or [32] (8-bit).
//
// init_structured_sparse_A fills a dense A with a random 2:4 pattern (two
// distinct positions per group, nonzero values in [-1, 1]), so tests can
// make inputs; encode compresses any dense A whose groups have at most two
// nonzeros and stops the program, naming the row and group, on one that has
// more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "croq/host.h"
#include "croq/types.h"

namespace croq {
namespace utils {

namespace sparse_detail {

template <typename V>
inline bool nonzero(const V& v) {
  // Both zeros of a floating type (and integer zero) are "not kept".
  return to_f32(v) != 0.0f;
}

[[noreturn]] inline void fail(const char* what, std::size_t a, std::size_t b, std::size_t c = 0, std::size_t d = 0) {
  std::fflush(stdout);
  std::fprintf(stderr, what, a, b, c, d);
  std::fputc('\n', stderr);
  std::exit(EXIT_FAILURE);
}

inline void require(bool ok, const char* what, std::size_t a = 0, std::size_t b = 0, std::size_t c = 0) {
  if (!ok) fail(what, a, b, c);
}

// The two kept positions (sorted) of the group of 4 at `p`, completed with
// the lowest free positions when it has fewer than two nonzeros.
template <typename V>
inline void kept_pair(const V* p, std::size_t row, std::size_t group, int (&idx)[2]) {
  int n = 0;
  for (int i = 0; i < 4; ++i) {
    if (!nonzero(p[i])) continue;
    if (n == 2)
      fail("croq sparse: row %zu, group %zu (elements %zu to %zu) has more than two nonzero elements; 2:4 "
           "sparsity keeps two in every four",
           row, group, group * 4, group * 4 + 3);
    idx[n++] = i;
  }
  for (int i = 0; n < 2 && i < 4; ++i)
    if (n == 0 || idx[0] != i) idx[n++] = i;
  if (idx[0] > idx[1]) std::swap(idx[0], idx[1]);
}

// Visits every group of a dense [M, K] operand: f(row, group, nibble), after
// writing the group's two kept elements to `packed` [M, K / 2].
template <typename V, typename F>
inline void compress(spanned_data<V, 2>& dense, spanned_data<V, 2>& packed, F&& f) {
  const std::size_t M = dense.shape()[0], K = dense.shape()[1];
  require(K % 4 == 0, "croq sparse: the K extent of a 2:4 sparse operand (%zu) must be a multiple of 4", K);
  require(packed.shape()[0] == M && packed.shape()[1] == K / 2,
          "croq sparse: the packed operand must be [%zu, %zu] for a dense [M, %zu]", M, K / 2, K);
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t g = 0; g < K / 4; ++g) {
      const V* p = dense.data() + r * K + g * 4;
      int idx[2];
      kept_pair(p, r, g, idx);
      packed.data()[r * (K / 2) + g * 2] = p[idx[0]];
      packed.data()[r * (K / 2) + g * 2 + 1] = p[idx[1]];
      f(r, g, static_cast<std::uint32_t>(idx[0] | (idx[1] << 2)));
    }
  }
}

template <typename V>
inline void random_pattern(spanned_data<V, 2>& dense, std::mt19937& gen, bool ones, bool random_pos, int pos0,
                           int pos1) {
  const std::size_t M = dense.shape()[0], K = dense.shape()[1];
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::uniform_int_distribution<int> position(0, 3);
  for (std::size_t i = 0; i < M * K; ++i) dense.data()[i] = from_f32<V>(0.0f);
  for (std::size_t r = 0; r < M; ++r) {
    for (std::size_t g = 0; g < K / 4; ++g) {
      int a = pos0, b = pos1;
      if (random_pos) {
        a = position(gen);
        do b = position(gen);
        while (b == a);
      }
      if (a > b) std::swap(a, b);
      V* p = dense.data() + r * K + g * 4;
      for (int slot : {a, b}) {
        V v = from_f32<V>(ones ? 1.0f : value(gen));
        // A value that rounds to zero would not be kept.
        if (!nonzero(v)) v = from_f32<V>(slot == a ? 1.0f : -1.0f);
        p[slot] = v;
      }
    }
  }
}

}  // namespace sparse_detail

// The number of K elements one metadata word covers, by operand and
// metadata type: u32 words of mma.sp take 16 elements of 16-bit operands
// and 64 of 8-bit ones (two words); u8 WGMMA metadata is counted per
// warpgroup instruction (32 or 64).
template <typename V, typename MetaT>
struct SparseMetaK {
  static constexpr std::size_t value = sizeof(V) == 1 && std::is_same_v<MetaT, u32> ? 64 : 16;
};
template <typename V>
struct SparseMetaK<V, u8> {
  static constexpr std::size_t value = sizeof(V) == 1 ? 64 : 32;
};

template <typename V, typename MetaT, std::size_t META_K>
struct Sparse2to4HostPolicy {
  static_assert(META_K % 4 == 0, "META_K counts whole groups of four");
  static constexpr std::size_t groups_per_strip = META_K / 4;
  static constexpr bool two_words = META_K == 64 && std::is_same_v<MetaT, u32>;
  static_assert(two_words || groups_per_strip * 4 <= sizeof(MetaT) * 8, "MetaT is too small for META_K");

  static void init_structured_sparse_A(spanned_data<V, 2>& dense, std::mt19937& gen) {
    sparse_detail::random_pattern(dense, gen, false, true, 0, 1);
  }
  static void init_structured_sparse_A_ones(spanned_data<V, 2>& dense, std::mt19937& gen, bool random_pos = false,
                                            int pos0 = 0, int pos1 = 1) {
    sparse_detail::require(pos0 >= 0 && pos0 < 4 && pos1 >= 0 && pos1 < 4 && pos0 != pos1,
                           "croq sparse: positions %zu and %zu must be distinct and in 0..3",
                           static_cast<std::size_t>(pos0), static_cast<std::size_t>(pos1));
    sparse_detail::random_pattern(dense, gen, true, random_pos, pos0, pos1);
  }

  static void encode(spanned_data<V, 2>& dense, spanned_data<V, 2>& packed, spanned_data<MetaT, 2>& meta,
                     std::vector<MetaT>* row_meta = nullptr) {
    const std::size_t M = dense.shape()[0], K = dense.shape()[1];
    const std::size_t cols = K / META_K * (two_words ? 2 : 1);
    sparse_detail::require(K % META_K == 0, "croq sparse: K (%zu) must be a multiple of META_K (%zu)", K, META_K);
    sparse_detail::require(meta.shape()[0] == M && meta.shape()[1] == cols,
                           "croq sparse: the metadata must be [%zu, %zu] (rows, words)", M, cols);
    std::memset(meta.data(), 0, M * cols * sizeof(MetaT));
    sparse_detail::compress(dense, packed, [&](std::size_t r, std::size_t g, std::uint32_t nibble) {
      const std::size_t strip = g / groups_per_strip, slot = g % groups_per_strip;
      std::size_t col = strip, shift = 4 * slot;
      if (two_words) col = 2 * strip + slot / 8, shift = 4 * (slot % 8);
      MetaT& word = meta.data()[r * cols + col];
      word = static_cast<MetaT>(word | (static_cast<std::uint64_t>(nibble) << shift));
    });
    if (row_meta) row_meta->assign(meta.data(), meta.data() + M * cols);
  }
};

template <typename V, typename MetaT>
using SparseHostPolicy = Sparse2to4HostPolicy<V, MetaT, SparseMetaK<V, MetaT>::value>;
template <typename V, typename MetaT = u32>
using SparsePolicyMMA = SparseHostPolicy<V, MetaT>;
template <typename V, typename MetaT = u32>
using SparsePolicy = SparsePolicyMMA<V, MetaT>;
template <typename V, typename MetaT = u32>
using SparsePolicyK16 = Sparse2to4HostPolicy<V, MetaT, 16>;
template <typename V, typename MetaT = u32>
using SparsePolicyK32 = Sparse2to4HostPolicy<V, MetaT, 32>;

// Rows i and i + 8 of each 16-row block in the order a warpgroup's threads
// read them: 32-bit word w (0..3) of fragment f of rows (i, i + 8) of the u8
// metadata is the two bytes 2w', 2w' + 1 of row i (low half) and of row i + 8
// (high half), w' = w % 2, stored at row 2i + w'.
template <typename V, std::size_t META_K>
struct Sparse2to4HostPolicyWGMMA {
  static_assert(META_K == 32 || META_K == 64, "WGMMA metadata covers 32 (16-bit) or 64 (8-bit) elements");

  static void init_structured_sparse_A(spanned_data<V, 2>& dense, std::mt19937& gen) {
    sparse_detail::random_pattern(dense, gen, false, true, 0, 1);
  }

  static void encode(spanned_data<V, 2>& dense, spanned_data<V, 2>& packed, spanned_data<u8, 2>& meta) {
    const std::size_t M = dense.shape()[0], K = dense.shape()[1];
    sparse_detail::require(K % 8 == 0 && meta.shape()[0] == M && meta.shape()[1] == K / 8,
                           "croq sparse: the u8 metadata of a dense [%zu, %zu] operand must be [%zu, K / 8]", M, K,
                           M);
    std::memset(meta.data(), 0, M * (K / 8));
    sparse_detail::compress(dense, packed, [&](std::size_t r, std::size_t g, std::uint32_t nibble) {
      u8& byte = meta.data()[r * (K / 8) + g / 2];
      byte = static_cast<u8>(byte | (nibble << (4 * (g % 2))));
    });
  }

  static void prepack(spanned_data<u8, 2>& meta_u8, spanned_data<u32, 2>& meta_u32) {
    const std::size_t M = meta_u8.shape()[0], bytes = meta_u8.shape()[1], frags = bytes / 4;
    sparse_detail::require(M % 16 == 0 && bytes % 4 == 0,
                           "croq sparse: prepack takes u8 metadata [M, B] with M (%zu) a multiple of 16 and B (%zu) "
                           "of 4",
                           M, bytes);
    sparse_detail::require(meta_u32.shape()[0] == M && meta_u32.shape()[1] == frags,
                           "croq sparse: prepack writes u32 metadata [%zu, %zu]", M, frags);
    auto half = [&](std::size_t row, std::size_t byte) {
      const u8* p = meta_u8.data() + row * bytes + byte;
      return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8);
    };
    for (std::size_t b = 0; b < M; b += 16)
      for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t f = 0; f < frags; ++f)
          for (std::size_t w = 0; w < 2; ++w)
            meta_u32.data()[(b + 2 * i + w) * frags + f] =
                half(b + i, 4 * f + 2 * w) | (half(b + i + 8, 4 * f + 2 * w) << 16);
  }

  static void prepack_v2(spanned_data<u8, 2>& meta_u8, spanned_data<u32, 2>& meta_u32);
};

// [M, F] u32 (one word per 16-row block row and fragment) to [M / 16][F][16].
inline void prepack_v2_16bit_reorder(spanned_data<u32, 2>& in, spanned_data<u32, 2>& out) {
  const std::size_t M = in.shape()[0], F = in.shape()[1];
  sparse_detail::require(out.shape()[0] == M && out.shape()[1] == F && M % 16 == 0,
                         "croq sparse: prepack_v2_16bit_reorder takes [M, F] to [M, F] with M (%zu) a multiple of 16",
                         M);
  for (std::size_t r = 0; r < M; ++r)
    for (std::size_t f = 0; f < F; ++f) out.data()[((r / 16) * F + f) * 16 + r % 16] = in.data()[r * F + f];
}

// [M, 2F] u32 (8-bit operands: two words per 64-wide fragment) to
// [M / 16][F][32], word (r, 2f + c) at lane ((r % 8) << 2) | (c << 1) | (r % 16 / 8).
inline void prepack_v2_fp8_reorder(spanned_data<u32, 2>& in, spanned_data<u32, 2>& out) {
  const std::size_t M = in.shape()[0], cols = in.shape()[1];
  sparse_detail::require(out.shape()[0] == M && out.shape()[1] == cols && M % 16 == 0 && cols % 2 == 0,
                         "croq sparse: prepack_v2_fp8_reorder takes [M, 2F] to [M, 2F] with M (%zu) a multiple of 16",
                         M);
  const std::size_t F = cols / 2;
  for (std::size_t r = 0; r < M; ++r)
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t rib = r % 16, lane = ((rib % 8) << 2) | ((c % 2) << 1) | (rib / 8);
      out.data()[((r / 16) * F + c / 2) * 32 + lane] = in.data()[r * cols + c];
    }
}

template <typename V, std::size_t META_K>
void Sparse2to4HostPolicyWGMMA<V, META_K>::prepack_v2(spanned_data<u8, 2>& meta_u8, spanned_data<u32, 2>& meta_u32) {
  spanned_data<u32, 2> v1(shape_t<2>{meta_u32.shape()[0], meta_u32.shape()[1]});
  prepack(meta_u8, v1);
  prepack_v2_16bit_reorder(v1, meta_u32);
}

template <typename V>
using SparsePolicyWGMMAK32 = Sparse2to4HostPolicyWGMMA<V, 32>;
template <typename V>
using SparsePolicyWGMMAK64 = Sparse2to4HostPolicyWGMMA<V, 64>;
template <typename V>
using SparsePolicyWGMMA = Sparse2to4HostPolicyWGMMA<V, SparseMetaK<V, u8>::value>;

}  // namespace utils
}  // namespace croq
