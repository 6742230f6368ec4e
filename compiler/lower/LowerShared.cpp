// Shared memory layout of a kernel: every shared buffer gets a 128-byte
// aligned offset in the kernel's dynamic shared memory.
//
// A buffer declared with `shared` lives from the first to the last
// top-level statement of the kernel that uses it. Two such buffers may take
// the same bytes when their lifetimes are disjoint and a CTA barrier lies
// between the last use of the first and the first use of the second, so no
// thread can still read the old buffer while another writes the new one (a
// GEMM's output staging tile reuses its copy ring, spec 21.2). Storage of
// futures (`=> shared`) is reached through pointers that `swap` exchanges
// and is never shared. Buffers whose size is known only at the launch come
// after all of these, one after another (no reuse), at offsets the kernel
// computes from its parameters; the wrapper sizes the dynamic shared memory
// with the same expression.
#include "lower/LowerImpl.h"

#include <algorithm>

#include "target/ElementTypes.h"

namespace croqc::lower {

namespace {

bool isCtaBarrier(const kir::Stmt* s) {
  // A named barrier orders only an `inthreads` region's threads.
  return s->kind == StmtKind::Barrier && s->scope == kir::Scope::Cta && s->count == 0;
}

std::int64_t bytesOf(const kir::Buffer* b) { return b->totalElements() * target::elementBytes(b->elem); }
std::int64_t alignUp(std::int64_t v, std::int64_t a = 128) { return (v + a - 1) / a * a; }

}  // namespace

namespace {

void placeSharedBuffers(kir::Module& module, kir::Kernel& k) {
  const std::vector<kir::Stmt*>& body = k.body;
  struct Life {
    kir::Buffer* buffer;
    std::int64_t first = -1, last = -1;
  };
  std::vector<Life> lives;
  std::vector<kir::Buffer*> sizedAtLaunch;
  for (const kir::Buffer* b : k.sharedBuffers) {
    if (b->runtimeElements) sizedAtLaunch.push_back(const_cast<kir::Buffer*>(b));
    else lives.push_back({const_cast<kir::Buffer*>(b)});
  }
  for (size_t i = 0; i < body.size(); ++i) {
    llvm::DenseSet<const kir::Buffer*> used;
    kir::forEachBufferUse(*body[i], [&](const kir::Buffer* b) { used.insert(b); });
    for (Life& l : lives) {
      if (!used.count(l.buffer)) continue;
      if (l.first < 0) l.first = static_cast<std::int64_t>(i);
      l.last = static_cast<std::int64_t>(i);
    }
  }
  // Top-level barriers, for the "barrier between" rule.
  std::vector<std::int64_t> barriers;
  for (size_t i = 0; i < body.size(); ++i)
    if (isCtaBarrier(body[i])) barriers.push_back(static_cast<std::int64_t>(i));
  auto separated = [&](const Life& a, const Life& b) {
    // a ends before b starts, with a barrier strictly between.
    if (a.last < 0 || b.first < 0 || a.last >= b.first) return false;
    return std::any_of(barriers.begin(), barriers.end(), [&](std::int64_t i) { return i > a.last && i < b.first; });
  };
  auto conflict = [&](const Life& a, const Life& b) {
    if (!a.buffer->reusable || !b.buffer->reusable) return true;
    return !separated(a, b) && !separated(b, a);
  };
  // First fit, in order of first use.
  std::vector<size_t> order(lives.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    auto key = [&](const Life& l) { return l.first < 0 ? std::numeric_limits<std::int64_t>::max() : l.first; };
    return key(lives[x]) < key(lives[y]);
  });
  std::vector<size_t> placed;
  std::int64_t total = 0;
  for (size_t idx : order) {
    Life& l = lives[idx];
    std::int64_t size = alignUp(bytesOf(l.buffer));
    // Occupied ranges of conflicting buffers, by offset.
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;
    for (size_t p : placed)
      if (conflict(l, lives[p]))
        busy.push_back({lives[p].buffer->sharedOffset, lives[p].buffer->sharedOffset + alignUp(bytesOf(lives[p].buffer))});
    std::sort(busy.begin(), busy.end());
    std::int64_t align = std::max<std::int64_t>(128, l.buffer->alignBytes);
    std::int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + size <= lo) break;
      offset = alignUp(std::max(offset, hi), align);
    }
    l.buffer->sharedOffset = offset;
    total = std::max(total, offset + bytesOf(l.buffer));
    placed.push_back(idx);
  }
  k.sharedBytes = total;
  k.sharedOptIn = total > target::kDefaultSharedBytes;
  if (sizedAtLaunch.empty()) return;
  const kir::Expr* end = module.intc(alignUp(total, 1024));
  for (kir::Buffer* b : sizedAtLaunch) {
    std::int64_t align = std::max<std::int64_t>(128, b->alignBytes);
    b->sharedOffsetExpr = end;
    const kir::Expr* bytes = module.mul(b->runtimeElements, module.intc(target::elementBytes(b->elem)));
    end = module.mul(module.cdiv(module.add(end, bytes), module.intc(align)), module.intc(align));
  }
  k.runtimeSharedBytes = end;
}

}  // namespace

void placeSharedMemory(kir::Module& module) {
  for (const std::unique_ptr<kir::Function>& f : module.functions)
    for (const std::unique_ptr<kir::Kernel>& k : f->kernels) {
      placeSharedBuffers(module, *k);
      k->sharedLaidOut = true;
    }
}

}  // namespace croqc::lower
