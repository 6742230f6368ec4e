// KIR, the kernel IR: what lowering makes of a checked `.co` function and
// what the emitters print. Everything the AST leaves implicit is explicit
// here: which thread runs what (thread-index arithmetic and masks), every
// buffer with its physical layout, every barrier, every copy with its tile
// shape, strides, valid extents and participating threads, and every MMA
// atom (`mma.sync.m16n8k16` fragments, ldmatrix or element loads).
//
// A Module holds the host code of the file (copied through) and, for every
// `__co__` function, its kernels and its host wrapper. Nodes are owned by
// the Module; pointers between them stay valid for its lifetime.
//
// Expressions are trees over integer and element values. Index arithmetic is
// built with the folding constructors of Module (`add`, `mul`, ...), which
// keep generated code free of `x * 1 + 0`.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SMLoc.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "lex/Token.h"

namespace llvm {
class raw_ostream;
class SourceMgr;
}  // namespace llvm

namespace croqc::kir {

// ---------------------------------------------------------------------------
// Types

/// The type of a scalar value. `Elem` carries the element type; f16, bf16
/// and fp8 values are computed in f32 (`computeType`), stored in their own
/// type.
struct ScalarType {
  enum class Kind : std::uint8_t { Void, Bool, Int, Elem };
  Kind kind = Kind::Int;
  TokenKind elem = TokenKind::eof;

  static ScalarType boolean() { return {Kind::Bool, TokenKind::eof}; }
  static ScalarType integer() { return {Kind::Int, TokenKind::eof}; }
  static ScalarType element(TokenKind e) { return {Kind::Elem, e}; }
  bool isElem() const { return kind == Kind::Elem; }
};

/// How `--emit=kir` spells a scalar type: `void`, `bool`, `int` (the
/// integers of shapes and indices), or the element type (`f16`, `s32`, `f32`).
std::string typeName(ScalarType t);
/// How the CUDA and CPU code spell it: `void`, `bool`, `int`, `croq::f16`,
/// `float`, ...
std::string cxxTypeName(ScalarType t);
std::string cxxElementType(TokenKind elem);
/// The type arithmetic on `elem` values is done in: f32 for 16-bit and 8-bit
/// floats, the type itself otherwise.
TokenKind computeType(TokenKind elem);

enum class Space : std::uint8_t { Global, Shared, Local };
llvm::StringRef spaceName(Space s);

/// The type of something that is not a scalar expression: a kernel
/// parameter, a buffer pointer, a host wrapper's parameter or result.
struct Type {
  enum class Kind : std::uint8_t {
    Scalar,     // a value of `scalar`
    Pointer,    // a pointer to `scalar` elements in `space`
    TensorMap,  // a TMA tensor map
    View,       // a host view of `rank` dimensions of `scalar` elements (a wrapper's data parameter)
    Data,       // host data of `rank` dimensions of `scalar` elements (a wrapper's result)
    Stream,     // a stream work is enqueued on
  };
  Kind kind = Kind::Scalar;
  ScalarType scalar;
  Space space = Space::Global;
  unsigned rank = 0;

  static Type of(ScalarType t) { return {Kind::Scalar, t, Space::Global, 0}; }
  static Type pointer(TokenKind elem, Space space) { return {Kind::Pointer, ScalarType::element(elem), space, 0}; }
  static Type tensorMap() { return {Kind::TensorMap, ScalarType{}, Space::Global, 0}; }
  static Type view(TokenKind elem, unsigned rank) {
    return {Kind::View, ScalarType::element(elem), Space::Global, rank};
  }
  static Type data(TokenKind elem, unsigned rank) {
    return {Kind::Data, ScalarType::element(elem), Space::Global, rank};
  }
  static Type stream() { return {Kind::Stream, ScalarType{}, Space::Global, 0}; }
};

/// How `--emit=kir` spells a type: `f16* global`, `tensor-map`,
/// `view<f16, 2>`, `data<s32, 1>`, `stream`, or the scalar's name.
std::string typeName(const Type& t);

// ---------------------------------------------------------------------------
// Buffers

struct Expr;
struct Fragment;

/// A named region of memory. Global buffers are parameters (or wrapper
/// allocations) with runtime extents; shared and local buffers have constant
/// extents. The physical layout is row-major with `rowStride` elements
/// between consecutive indices of the next-to-last dimension (padding for
/// bank-conflict-free ldmatrix), and `slots` copies for a buffer array
/// (`buf[STAGES]`), `slotElements` apart.
struct Buffer {
  std::string name;
  /// The name in the `.co` source (for messages); may be empty.
  std::string sourceName;
  TokenKind elem = TokenKind::eof;
  Space space = Space::Global;
  std::vector<const Expr*> shape;
  std::vector<std::int64_t> arrayDims;
  /// Elements between rows (the stride of dimension rank-2); equals the last
  /// extent unless padded. Constant buffers only.
  std::int64_t rowStride = 0;
  std::int64_t slotElements = 0;
  /// A buffer whose extents are known only at launch (spec 5.4): the
  /// elements of all its slots, an expression over the kernel's parameters;
  /// null when `slotElements` says it.
  const Expr* runtimeElements = nullptr;
  /// The strides of every dimension, in elements (from shape and rowStride).
  std::vector<const Expr*> strides;
  unsigned alignBytes = 16;
  /// Shared buffers: the byte offset in the kernel's shared memory, and
  /// whether another buffer may take its space once it is dead.
  std::int64_t sharedOffset = 0;
  /// Shared buffers of run-time size: their byte offset, placed after every
  /// buffer of constant size (null for those).
  const Expr* sharedOffsetExpr = nullptr;
  bool reusable = false;
  /// A pointer to one of several storage buffers of the same layout (a
  /// future's data, which `swap` exchanges between futures): declared by a
  /// BufferPointer statement; it takes no memory of its own.
  bool pointer = false;
  /// A global buffer the host wrapper allocates (HostStmt::AllocDevice, a
  /// `croq::device_buffer`) rather than one whose pointer a caller passed:
  /// the wrapper passes `NAME.get()` for it and copies it out itself.
  bool wrapperOwned = false;
  /// WGMMA operand tiles: stored K-major in swizzled blocks of this many
  /// bytes per row (croq/device/wgmma_tile.h); 0 for row-major.
  int swizzleBytes = 0;
  llvm::SMLoc loc;

  std::int64_t slotCount() const;
  /// Swizzled buffers: the rows of their 2-D layout, the product of every
  /// extent but the last (`[1, 64, 64]` is 64 rows of 64); 0 when one is
  /// not constant.
  std::int64_t swizzleRows() const;
  std::int64_t totalElements() const { return slotElements * slotCount(); }
};

// ---------------------------------------------------------------------------
// Expressions

enum class ExprKind : std::uint8_t {
  IntConst,    // intValue
  FloatConst,  // spelling (a literal such as `0.5f`, or `inf` / `-inf`), type.elem
  BoolConst,   // intValue
  Var,         // name
  Unary,       // name = operator spelling (`x++`, `x--`: the postfix increment and decrement); operands[0]
  Binary,      // name = operator spelling; operands[0], operands[1]
  Select,      // operands: cond, then, else
  Call,        // name = callee (`intrinsic`: a name of kir/Intrinsics.def; otherwise a user function's
               // C++ name); operands = arguments
  Load,        // buffer[operands[0]]
  Address,     // &buffer[operands[0]]: a pointer to the element, passed to a user function (`call f(buf)`)
  Convert,     // operands[0] converted to `type`
  FragElem,    // element operands[2] of atom (operands[0], operands[1]) of the f32 accumulator
               // `frag`, as this thread holds it (a warpgroup accumulator's atoms are [i][0])
  Builtin,     // the launch coordinate `builtin` along dimension intValue (0: x, 1: y, 2: z), an int
  ViewExtent,  // extent intValue of the host view parameter `name` (host wrappers only)
};

/// The coordinates a kernel reads off its launch.
enum class Builtin : std::uint8_t {
  ThreadIdx,  // the thread's index in its block
  BlockIdx,   // the block's index in the grid
  GridDim,    // the grid's extent
};

/// A template argument of a call to a user function (`f<f16, 4>(x)`): an
/// element type, or a value.
struct TemplateArg {
  TokenKind elem = TokenKind::eof;  // the type, when `value` is null
  const Expr* value = nullptr;
};

struct Expr {
  ExprKind kind = ExprKind::IntConst;
  ScalarType type;
  std::int64_t intValue = 0;
  std::string name;
  std::vector<const Expr*> operands;
  const Buffer* buffer = nullptr;
  const Fragment* frag = nullptr;
  Builtin builtin = Builtin::ThreadIdx;

  /// A Call of a function of kir/Intrinsics.def, by its KIR name.
  bool intrinsic = false;
  /// A Call's template arguments, printed after its name.
  std::vector<TemplateArg> templateArgs;

  bool isConst() const { return kind == ExprKind::IntConst; }
  bool isConst(std::int64_t v) const { return kind == ExprKind::IntConst && intValue == v; }
};

/// The largest power of two (up to 2^20) that `e` is known to be a multiple
/// of, from constants and products.
std::int64_t knownMultiple(const Expr* e);

/// Whether evaluating `e` reads shared or global memory (a Load of a buffer
/// that is not local), which a CTA barrier orders against other threads'
/// later writes.
bool readsNonLocalMemory(const Expr* e);

struct Stmt;
struct Fragment;

/// The accumulator of asynchronous WGMMAs (`Fragment::asyncUse`) that `s`
/// fills, stores or scales outside a WGMMA (a fill; the store or scale of
/// its first 64-row slab, which the others follow), or null. The
/// `wgmma-operand-fences` pass puts an operand fence of each of its rows
/// right before such a statement, so that the compiler cannot move the
/// access above the `mma.wait` that precedes it.
const Fragment* asyncAccumulatorAccessed(const Stmt* s);

// ---------------------------------------------------------------------------
// Tiles: a rectangular window of a buffer, as copies and MMA operands see it.

struct Tile {
  const Buffer* buffer = nullptr;
  /// Element offset of the window's first element from the buffer start
  /// (slot included).
  const Expr* offset = nullptr;
  /// Constant extents of the window, one per dimension (-1: known only at
  /// run time, then `runtimeExtents` holds it; a run-time extent with a
  /// constant bound has the bound here, its value in `runtimeExtents`, and
  /// `valid` limited to it).
  std::vector<std::int64_t> extents;
  std::vector<const Expr*> runtimeExtents;
  /// Distance in elements between neighbours along each dimension.
  std::vector<const Expr*> strides;
  /// How many leading elements along each dimension lie inside the buffer
  /// (the rest is outside: reads give zero, writes are dropped); null when
  /// the whole extent is always inside.
  std::vector<const Expr*> valid;
  /// False when the window lies wholly outside (a squeezed dimension past
  /// the end); null when always inside.
  const Expr* inside = nullptr;
  /// Swizzled buffers: the logical row and column of the window's origin
  /// (`offset` is then only the slot of a buffer array).
  const Expr* row0 = nullptr;
  const Expr* col0 = nullptr;

  unsigned rank() const { return static_cast<unsigned>(extents.size()); }
  bool alwaysFull() const;
};

// ---------------------------------------------------------------------------
// Statements

/// What a Fence statement orders.
enum class FenceKind : std::uint8_t {
  Device,            // memory operations, as seen by the whole device (__threadfence)
  Block,             // memory operations, as seen by the block (__threadfence_block)
  ProxyAsyncShared,  // ordinary shared-memory writes before the copy engine's and tensor cores' reads
  MbarrierInit,      // mbarrier initialisation before their use by other threads and the copy engine
};

/// Who executes a cooperative statement.
enum class Scope : std::uint8_t { Thread, Warp, Warpgroup, Cta, Cluster };
llvm::StringRef scopeName(Scope s);

/// Which operand an MMA fragment holds: A, B, the accumulator C, or E, the
/// 2:4 metadata of a sparse A (one u32 register per thread and instruction).
enum class FragRole : std::uint8_t { A, B, C, E };
llvm::StringRef fragRoleName(FragRole r);

/// A register tile of MMA atoms: `mt x nt` atoms of 16x8 (C), `mt x kt` of
/// 16x16 (A) or `nt x kt` of 8x16 (B).
struct Fragment {
  std::string name;
  FragRole role = FragRole::C;
  TokenKind inType = TokenKind::eof;   // operand element type (A, B; C: the inputs)
  TokenKind accType = TokenKind::eof;  // accumulator element type (C)
  std::int64_t rows = 0;               // atoms along the first index
  std::int64_t cols = 0;               // atoms along the second index
  /// Logical shape of the tile, for dumps ([M, N], [M, K], [N, K]).
  std::int64_t logicalRows = 0, logicalCols = 0;
  /// A warpgroup fragment (WGMMA): an accumulator (C) of `rows` m64nN atoms,
  /// each `logicalCols` wide; or an RS-mode A operand of `rows` x `cols`
  /// atoms of 64 x 16, of which each warp of the warpgroup holds its 16-row
  /// slab in the m16n8k16 A layout.
  bool warpgroup = false;
  /// Asynchronous WGMMAs (`mma.wait<n>` in the kernel) accumulate into it.
  bool asyncUse = false;
  /// Warp fragments: the mma.sync atom, M (16 or 8) x 8 x K with K
  /// `atomKBytes` bytes of an operand row (32, 16, or 8 for m8n8k4); see
  /// croq/device/mma_layout.h.
  std::int64_t atomM = 16;
  std::int64_t atomK = 16;
  std::int64_t atomKBytes = 32;
  /// An array of accumulators (`frag mc[2][3] {0.0};`): its dimensions; the
  /// statements that use one element say which in `fragIndex`.
  std::vector<std::int64_t> arrayDims;

  bool defaultAtom() const { return atomM == 16 && atomKBytes == 32; }
  /// Accumulator elements per lane and atom.
  std::int64_t accElements() const { return atomKBytes == 8 ? 8 : atomM / 4; }
};

/// The kind of a statement: one per operation, listed with the fields each
/// reads in `kir/StmtKinds.def`.
enum class StmtKind : std::uint8_t {
#define KIR_STMT(Name, Keyword, Description) Name,
#include "kir/StmtKinds.def"
};

/// How messages name a statement kind ("atom MMA").
llvm::StringRef stmtKindName(StmtKind k);
/// The word `--emit=kir` starts a statement of kind `k` with ("atom.mma").
llvm::StringRef stmtKeyword(StmtKind k);


struct Stmt {
  StmtKind kind = StmtKind::Block;
  /// The `.co` statement this came from (for comments and #line).
  llvm::SMLoc loc;

  std::vector<Stmt*> body;
  std::vector<Stmt*> elseBody;

  std::string var;
  const Expr* lo = nullptr;
  const Expr* hi = nullptr;
  std::int64_t step = 1;
  bool unroll = false;

  const Expr* cond = nullptr;
  const Expr* value = nullptr;
  const Expr* index = nullptr;
  ScalarType type;
  bool isMutable = false;
  /// Let: a generated name that may go unused (thread-mapping variables).
  bool maybeUnused = false;
  /// Fence: touches no memory other threads see, so barrier elision may
  /// look past it (the async-proxy fence after a wait for this thread's own
  /// copies).
  bool pure = false;
  std::string op;  // "=", "+=", ...
  const Buffer* buffer = nullptr;

  Scope scope = Scope::Cta;
  /// Copy: participating threads and this thread's rank among them.
  std::int64_t threads = 1;
  const Expr* rank = nullptr;
  Tile dst;
  Tile src;
  bool async = false;
  bool zfill = false;
  std::int64_t count = 0;
  /// TmaLoad: the blocks of the cluster the box is multicast to, each
  /// loading `1 / cluster` of its rows for all (1: an ordinary load).
  /// EventArrive: the blocks of the cluster on whose events it arrives.
  std::int64_t cluster = 1;

  /// Fragment statements: the fragments and atom indices.
  const Fragment* frag = nullptr;
  const Fragment* fragA = nullptr;
  const Fragment* fragB = nullptr;
  /// AtomMma of a 2:4 sparse warp MMA (mma.sp.sync): its metadata fragment,
  /// indexed like A.
  const Fragment* fragE = nullptr;
  /// The element of an accumulator array `frag` the statement uses (empty:
  /// the whole fragment).
  std::vector<const Expr*> fragIndex;
  const Expr* i = nullptr;
  const Expr* j = nullptr;
  const Expr* k = nullptr;
  /// AtomLoad: the layout the operand is stored in (A: [M, K] or [K, M]; B:
  /// [N, K] or [K, N]) and whether ldmatrix can read it.
  bool transposed = false;
  bool useLdmatrix = false;
  /// AtomLoad of B with ldmatrix: loads the two atoms j and j + 1 at once.
  bool pairB = false;
  /// AtomLoad of sparse metadata (a fragment of role E) from u32 words in
  /// the layout of `prepack_v2` (croq/sparse.h): the tile's words are found
  /// from its offset in the buffer and the buffer's row stride.
  bool prepackV2 = false;
  /// WgmmaExec: B is stored MN-major (`transposed` says it of A). A sparse
  /// WgmmaExec (wgmma.mma_async.sp) names its metadata fragment in `fragB`.
  bool transposedB = false;
  /// WgmmaExec: the order its `count` K steps are issued in, a permutation
  /// of [0, count) (`[[schedule(k_tiles(...))]]`); empty: 0, 1, 2, ...
  std::vector<std::int64_t> kOrder;

  /// Fence: what it orders.
  FenceKind fence = FenceKind::Device;
  /// TmaLoad completing on an element of an event array: its index in the
  /// array of mbarriers `var` (null: `var` is one mbarrier).
  const Expr* mbarrierIndex = nullptr;

  std::string text;
  /// Print: the values the format consumes, in order.
  std::vector<const Expr*> args;
};

// ---------------------------------------------------------------------------
// Kernels and host wrappers

/// A kernel parameter and what its wrapper passes for it.
struct KernelParam {
  enum class Kind : std::uint8_t {
    Buffer,     // `buffer`'s device pointer, `T* __restrict__` for its element type T
    Scalar,     // a value of `type`
    TensorMap,  // a TMA tensor map, passed as a `__grid_constant__` CUtensorMap
  };
  Kind kind = Kind::Scalar;
  std::string name;
  const Buffer* buffer = nullptr;
  ScalarType type;
  /// The wrapper's variable that is passed (a buffer's pointer or device
  /// allocation, a value, a tensor map).
  std::string argument;

  static KernelParam ofBuffer(const Buffer* b);
  static KernelParam scalar(std::string name, ScalarType type, std::string argument);
  static KernelParam tensorMap(std::string name);
};

/// The type a kernel receives a parameter as: a pointer to the buffer's
/// elements, a scalar, a tensor map.
Type paramType(const KernelParam& p);

struct Kernel {
  std::string name;
  llvm::SMLoc loc;
  std::vector<KernelParam> params;
  /// Grid extents (x, y, z) as host expressions over the wrapper's values.
  std::vector<const Expr*> grid;
  std::int64_t threads = 1;
  /// A block of a run-time number of warps (`parallel w by N : group`): the
  /// number of instances of `threads` threads, a host expression; the
  /// wrapper launches `threads * instances` threads and checks the limit.
  const Expr* instances = nullptr;
  /// Shared buffers declared at kernel scope; their total size.
  std::vector<const Buffer*> sharedBuffers;
  /// Global and shared buffers that `__cpp__` text in the kernel names by
  /// their `.co` name: the kernel declares that name as their pointer.
  std::vector<const Buffer*> cppNamedBuffers;
  std::int64_t sharedBytes = 0;
  /// The shared buffers have their offsets and `sharedBytes` its value (the
  /// `shared-layout` pass ran).
  bool sharedLaidOut = false;
  /// With shared buffers of run-time size: the whole dynamic shared memory
  /// in bytes, a host expression the wrapper evaluates at the launch (and
  /// checks against the device's per-block limit); null otherwise.
  const Expr* runtimeSharedBytes = nullptr;
  /// Local buffers of run-time size (`local f32 [K] v;` of a symbolic K, or
  /// `=> local` of a symbolic shape): each thread allocates them on its stack
  /// at the top of the kernel (their `LocalArray`s are top-level statements),
  /// and the wrapper makes the device's per-thread stack large enough first.
  std::vector<const Buffer*> runtimeLocals;
  /// The wrapper raises the kernel's dynamic shared-memory limit to
  /// `sharedBytes` (and asks for the largest shared carve-out) before the
  /// launch: it uses more than target::kDefaultSharedBytes. Set by
  /// `shared-layout`; with `runtimeSharedBytes` the wrapper decides at the
  /// launch.
  bool sharedOptIn = false;
  /// Every fill, store and scale of an accumulator of asynchronous WGMMAs
  /// follows operand fences of its rows (the `wgmma-operand-fences` pass
  /// ran; `asyncAccumulatorAccessed`).
  bool accumulatorsFenced = false;
  bool cooperative = false;
  /// Blocks per thread-block cluster (`parallel ... : cluster`), consecutive
  /// along grid x; 1 without clusters.
  std::int64_t clusterSize = 1;
  /// The kernel prints (`print`/`println`): the wrapper waits for it so that
  /// its output appears where the program called the function.
  bool prints = false;
  /// `__launch_bounds__(launchBoundThreads, launchMinBlocks)`: at least
  /// `threads` (0: no launch bounds, which `maxRegisters` requires); B 0:
  /// none. `maxRegisters` > 0: `__maxnreg__(maxRegisters)`.
  std::int64_t launchBoundThreads = 0;
  std::int64_t launchMinBlocks = 0;
  std::int64_t maxRegisters = 0;
  std::vector<Stmt*> body;
};

/// One statement of a host wrapper.
struct HostStmt {
  enum class Kind : std::uint8_t {
    CheckShape,  // cond: what the parameters' shapes must satisfy; message: what it says otherwise
    Let,         // `const type var = value`: a value the wrapper reads off its parameters (a
                 // dimension), which every kernel of the function receives as a parameter
    Local,       // `const type var = value`: a value only the wrapper reads (kernels receive it
                 // where a KernelParam passes it, as the TMA launch condition `tma_ok_N`)
    DataPointer, // buffer (global): the device pointer of the host view `from` (`from.data()`)
    AllocDevice, // buffer; from: host view to copy in, or value: the value of every element
    Launch,      // kernel
    CopyOut,     // buffer -> host view `from`
    Return,      // buffer (device) -> a new host spanned_data; or value: a scalar, after the work on `stream`
    Raw,         // text: the user's `__cpp__` code
    Code,        // code: scalar statements (integers, conditions, loops, print) run on the host
    StreamWait,  // stream `text` waits for the work enqueued so far on stream `from`
    StreamSync,  // the host waits for stream `text`
    TensorMap,   // text: the map's name; buffer: the global tensor at pointer `from`, as [tensorRows][tensorCols],
                 // read or written in [boxRows][boxCols] boxes with `swizzle`-byte rows (0: none)
  };
  Kind kind = Kind::Raw;
  /// Raw: the user's code; StreamWait, StreamSync: the stream; TensorMap: the map's name.
  std::string text;
  /// CheckShape: what the wrapper reports when the condition is false.
  std::string message;
  /// Let, Local: the variable, its type and its value; AllocDevice: the
  /// value of every element; Return: the scalar returned.
  std::string var;
  ScalarType type;
  const Expr* value = nullptr;
  /// CheckShape: the condition.
  const Expr* cond = nullptr;
  const Buffer* buffer = nullptr;
  std::string from;
  const Kernel* kernel = nullptr;
  /// Launch: `parallel.async`.
  bool async = false;
  /// Launch: the stream it is enqueued on; AllocDevice, CopyOut, Return: the
  /// stream the allocation and copies are ordered on (a C++ expression).
  std::string stream;
  std::vector<Stmt*> code;
  llvm::SMLoc loc;
  /// TensorMap: the box, the swizzle, and whether a tensor the hardware
  /// cannot describe (an address or row pitch that is not a multiple of 16
  /// bytes) is copied, on the wrapper's stream, into a scratch tensor with an
  /// aligned pitch that the map describes instead (only for tensors that no
  /// kernel of the function writes).
  std::int64_t boxRows = 0, boxCols = 0;
  /// TensorMap: the tensor's rows and columns as the map describes it (the
  /// buffer's shape, or the 2-D shape a `span_as` of the whole buffer gives).
  const Expr* tensorRows = nullptr;
  const Expr* tensorCols = nullptr;
  int swizzle = 0;
  bool staged = false;
};

/// A parameter of a host wrapper.
struct WrapperParam {
  std::string name;
  /// A view (a data parameter), a scalar or a stream.
  Type type;
};

struct Function {
  std::string name;
  llvm::SMLoc loc;
  /// The wrapper's signature: a scalar (void included) or data it returns,
  /// and its parameters.
  Type returnType = Type::of({ScalarType::Kind::Void, TokenKind::eof});
  std::vector<WrapperParam> params;
  /// The wrapper's own stream, its last parameter (defaulting to the legacy
  /// default stream): `parallel`s without `<s>`, device allocations and the
  /// copies of host data are enqueued on it. An entry point that has a
  /// `cudaStream_t` passes it here.
  std::string stream = "croq_stream_";
  std::vector<std::unique_ptr<Kernel>> kernels;
  std::vector<HostStmt> wrapper;
};

/// A top-level piece of the output, in file order.
struct TopItem {
  enum class Kind : std::uint8_t { HostText, Function };
  Kind kind = Kind::HostText;
  std::string text;
  llvm::SMLoc loc;
  const Function* function = nullptr;
};

class Module {
 public:
  Module();
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::vector<TopItem> items;
  std::vector<std::unique_ptr<Function>> functions;
  /// The `.co` file name, for comments.
  std::string sourceName;

  // Node construction.
  Stmt* stmt(StmtKind kind, llvm::SMLoc loc = {});
  Buffer* buffer();
  Fragment* fragment();

  // Expression construction with folding.
  const Expr* intc(std::int64_t v);
  const Expr* boolc(bool v);
  const Expr* floatc(llvm::StringRef spelling, TokenKind elem);
  const Expr* var(llvm::StringRef name, ScalarType t = ScalarType::integer());
  /// `builtin` along dimension `dim` (0: x, 1: y, 2: z).
  const Expr* builtin(Builtin builtin, int dim);
  const Expr* unary(llvm::StringRef op, const Expr* a, ScalarType t);
  const Expr* binary(llvm::StringRef op, const Expr* a, const Expr* b, ScalarType t);
  const Expr* add(const Expr* a, const Expr* b);
  const Expr* sub(const Expr* a, const Expr* b);
  const Expr* mul(const Expr* a, const Expr* b);
  const Expr* div(const Expr* a, const Expr* b);
  const Expr* mod(const Expr* a, const Expr* b);
  const Expr* cdiv(const Expr* a, const Expr* b);
  const Expr* min(const Expr* a, const Expr* b);
  const Expr* max(const Expr* a, const Expr* b);
  const Expr* lt(const Expr* a, const Expr* b);
  const Expr* eq(const Expr* a, const Expr* b);
  const Expr* logicalAnd(const Expr* a, const Expr* b);
  const Expr* select(const Expr* c, const Expr* a, const Expr* b, ScalarType t);
  const Expr* call(llvm::StringRef callee, std::vector<const Expr*> args, ScalarType t,
                   std::vector<TemplateArg> templateArgs = {});
  /// A call of the intrinsic `name` (kir/Intrinsics.def).
  const Expr* intrinsic(llvm::StringRef name, std::vector<const Expr*> args, ScalarType t);
  const Expr* load(const Buffer* b, const Expr* index);
  const Expr* address(const Buffer* b, const Expr* index);
  /// Element `elem` of atom (atomRow, atomCol) of accumulator `f` (FragElem).
  const Expr* fragElem(const Fragment* f, const Expr* atomRow, const Expr* atomCol, const Expr* elem);
  const Expr* convert(const Expr* e, ScalarType to);
  /// Extent `dim` of the host view parameter `view` (ViewExtent), an int.
  const Expr* viewExtent(llvm::StringRef view, std::int64_t dim);

 private:
  const Expr* make(Expr e);
  std::deque<Expr> exprs_;
  std::deque<Stmt> stmts_;
  std::deque<Buffer> buffers_;
  std::deque<Fragment> fragments_;
};

/// Calls `fn` with every buffer statement `s`, or a statement inside it,
/// uses in the sense of a shared buffer's lifetime (shared-memory placement
/// and its check in `kir::verify`): the statement's `buffer`, the buffers of
/// its `dst` and `src` tiles, and the buffers loaded in any of its
/// expressions (bounds, condition, value, index, rank, atom indices, print
/// arguments) and its tiles' (offset, bounds, origin, run-time extents). An
/// mbarrier or event initialisation does not count, nor does a pointer
/// declaration (nor anything inside them): mbarriers never share bytes, and
/// placing them by their first wait or arrival keeps them after the tiles,
/// whose offsets are aligned to up to 1024 bytes; a pointer to a future's
/// storage touches none. Null statements inside are skipped; `fn` may see a
/// buffer more than once.
void forEachBufferUse(const Stmt& s, llvm::function_ref<void(const Buffer*)> fn);

/// `--emit=kir`: the module as indented text, deterministic.
void print(const Module& m, const llvm::SourceMgr& sm, llvm::raw_ostream& os);

/// How `printExpr` spells an expression.
enum class ExprSyntax : std::uint8_t {
  /// C++ with the parentheses precedence needs (host and device code share it).
  Cxx,
  /// C++ as a wrapper's definitions spell conditions: a `?:` condition in
  /// parentheses, and so is a comparison that is an operand of `&&` or `||`
  /// (`(a_ok && (N % 64 == 0)) ? 1 : 0`).
  CxxCondition,
  /// `--emit=kir` of host wrappers: as CxxCondition, with the extent of a host
  /// view as `extent(view, d)`, intrinsics by their KIR names, conversions as
  /// `cvt<s32>(x)` and infinities as `inf`.
  Kir,
  /// `--emit=kir` of kernel code: C++ precedence, KIR names and conversions
  /// as in Kir (`cdiv(K, 64)`), launch coordinates as `threadIdx.x`.
  KirKernel,
};
/// The C++ function that the intrinsic `name` calls (kir/Intrinsics.def), or
/// an empty string for a name that is none.
llvm::StringRef cxxIntrinsic(llvm::StringRef name);
/// An expression as text in `syntax`.
std::string printExpr(const Expr* e, ExprSyntax syntax = ExprSyntax::Cxx);

}  // namespace croqc::kir
