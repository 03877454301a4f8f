// The CPU simulator's stand-in for <cooperative_groups.h>: the groups of one thread block,
// mapped onto the simulator's own barrier and warp collectives (cuda_runtime.h), so each is
// checked exactly as the intrinsic it maps to: cg::sync(block) and block.sync() are
// __syncthreads(); a tile's sync, shuffles and votes are __syncwarp, __shfl_*_sync and
// __ballot_sync / __any_sync / __all_sync / __match_*_sync with the tile's lanes as the mask and
// the tile's size as the shuffle width; a coalesced group's mask is __activemask(). Reports
// name that intrinsic and the line of the call in the program.
//
// Supported: this_thread_block(), thread_block, tiled_partition<N>(block or tile) for N = 1, 2,
// 4, 8, 16, 32 (thread_block_tile<N>) and, as CUDA has them, tiles of several warps (N = 64, 128,
// 256, 512: sync, shfl, any, all, each a wait of the whole tile in the scheduler,
// tile_collective), coalesced_threads() (coalesced_group), thread_group as a parameter type,
// cg::sync(group); cg::reduce in <cooperative_groups/reduce.h>; this_grid()'s ranks and sizes;
// labeled_partition and binary_partition of a coalesced group or a tile of one warp (the lanes
// with the same label, as a coalesced group). Anything else fails to compile: a grid-wide
// barrier (grid.sync()) and run-time tile sizes with a static_assert that says so, the rest
// (multi-grid and cluster groups, scan, memcpy_async) as an unknown name. See sim/README.md.
#pragma once

#include <cuda_runtime.h>

#ifdef HISTO_SIM_TCB
#pragma clang attribute push(HISTO_SIM_DEVICE_API, apply_to = function)
#endif

namespace cooperative_groups {

namespace details {
template <typename T>
struct always_false : std::false_type {};

inline unsigned lane() { return ::histo_sim::current_thread().lane; }
inline unsigned block_rank() { return ::histo_sim::current_thread().linear; }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// One shuffle of any trivially copyable value: 8 bytes at a time, as many collectives as it
// takes (every lane makes the same sequence), as CUDA's shuffles of larger types do.
template <typename T>
T shuffle(::histo_sim::WarpOp op, unsigned mask, const T& value, int arg, int width,
          const char* file, int line) {
  static_assert(std::is_trivially_copyable<T>::value, "cooperative groups shuffle trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return ::histo_sim::from_bits<T>(
        ::histo_sim::warp_collective(op, mask, ::histo_sim::to_bits(value), arg, width, file, line));
  } else {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (size_t at = 0; at < sizeof(T); at += 8) {
      const size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
      uint64_t bits = 0;
      std::memcpy(&bits, bytes + at, n);
      bits = ::histo_sim::warp_collective(op, mask, bits, arg, width, file, line);
      std::memcpy(bytes + at, &bits, n);
    }
    T out;
    std::memcpy(&out, bytes, sizeof(T));
    return out;
  }
}
inline uint64_t vote(::histo_sim::WarpOp op, unsigned mask, uint64_t value, const char* file, int line) {
  return ::histo_sim::warp_collective(op, mask, value, 0, 32, file, line);
}
// The lane of the member of rank `rank` in `mask` (-1 when there is none, as CUDA's __fns).
inline int lane_of_rank(unsigned mask, unsigned rank) {
  for (int j = 0; j < 32; ++j)
    if (mask >> j & 1u) {
      if (rank == 0) return j;
      --rank;
    }
  return -1;
}
}  // namespace details

// Any group, seen through what all groups have (a function's parameter, as in CUDA's guide).
class thread_group {
 public:
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned long long thread_rank() const { return rank_; }
  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    if (block_)
      ::histo_sim::syncthreads(file, line);
    else if (size_ > 32)
      (void)::histo_sim::tile_collective(::histo_sim::WarpOp::syncwarp, size_, 0, 0, file, line);
    else
      (void)details::vote(::histo_sim::WarpOp::syncwarp, mask_, 0, file, line);
  }

 protected:
  thread_group(bool block, unsigned mask, unsigned size, unsigned rank)
      : block_(block), mask_(mask), size_(size), rank_(rank) {}

 private:
  bool block_;
  unsigned mask_;  // a warp's group: its lanes
  unsigned size_, rank_;  // a group of more than 32 threads, not the block: a tile of several warps
};

// The thread block (this_thread_block()).
class thread_block : public thread_group {
 public:
  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    ::histo_sim::syncthreads(file, line);
  }
  static unsigned size() { return details::block_size(); }
  static unsigned num_threads() { return details::block_size(); }
  static unsigned thread_rank() { return details::block_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }

 private:
  thread_block() : thread_group(true, 0, details::block_size(), details::block_rank()) {}
  friend thread_block this_thread_block();
  template <typename Memory>
  friend thread_block this_thread_block(Memory&);
};

inline thread_block this_thread_block() { return thread_block(); }

// The scratch memory CUDA's tiles of several warps use: accepted; the simulator's tiles need none.
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {};
template <typename Memory>
thread_block this_thread_block(Memory&) {
  return thread_block();
}

template <unsigned N, typename Parent = void>
class thread_block_tile;

namespace details {
// A tile of N threads (N a power of two up to 32) of one warp: lanes [base, base + N).
template <unsigned N>
class warp_tile : public thread_group {
  using Op = ::histo_sim::WarpOp;

 public:
  static unsigned size() { return N; }
  static unsigned num_threads() { return N; }
  static unsigned thread_rank() { return details::lane() & (N - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  // The tile's lanes, as CUDA's tiles build their mask.
  static unsigned build_mask() {
    if constexpr (N == 32)
      return 0xFFFFFFFFu;
    else
      return ((1u << N) - 1) << (details::lane() & ~(N - 1));
  }

  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    (void)details::vote(Op::syncwarp, build_mask(), 0, file, line);
  }
  template <typename T>
  T shfl(const T& value, int src_rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return details::shuffle(Op::shfl, build_mask(), value, src_rank, N, file, line);
  }
  template <typename T>
  T shfl_down(const T& value, unsigned delta, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
    return details::shuffle(Op::shfl_down, build_mask(), value, int(delta), N, file, line);
  }
  template <typename T>
  T shfl_up(const T& value, unsigned delta, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    return details::shuffle(Op::shfl_up, build_mask(), value, int(delta), N, file, line);
  }
  template <typename T>
  T shfl_xor(const T& value, unsigned lane_mask, const char* file = __builtin_FILE(),
             int line = __builtin_LINE()) const {
    return details::shuffle(Op::shfl_xor, build_mask(), value, int(lane_mask), N, file, line);
  }
  int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(details::vote(Op::any, build_mask(), predicate ? 1 : 0, file, line));
  }
  int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(details::vote(Op::all, build_mask(), predicate ? 1 : 0, file, line));
  }
  // Bit i: the tile's thread of rank i.
  unsigned ballot(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return unsigned(details::vote(Op::ballot, build_mask(), predicate ? 1 : 0, file, line)) >>
           (details::lane() & ~(N - 1));
  }
  template <typename T>
  unsigned match_any(T value, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return unsigned(details::vote(Op::match_any, build_mask(), ::histo_sim::to_bits(value), file, line)) >>
           (details::lane() & ~(N - 1));
  }
  template <typename T>
  unsigned match_all(T value, int& pred, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    const unsigned r = unsigned(details::vote(Op::match_all, build_mask(), ::histo_sim::to_bits(value), file, line));
    pred = r != 0;
    return r >> (details::lane() & ~(N - 1));
  }

 protected:
  warp_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(false, build_mask(), N, thread_rank()), meta_rank_(meta_rank), meta_size_(meta_size) {}

 private:
  unsigned meta_rank_, meta_size_;
};

// A tile of N threads of several warps (N = 64, 128, 256, 512), threads [base, base + N) of the
// block, with what CUDA gives such tiles: sync, shfl of a value of up to 8 bytes, any, all.
template <unsigned N>
class multi_warp_tile : public thread_group {
  using Op = ::histo_sim::WarpOp;

 public:
  static unsigned size() { return N; }
  static unsigned num_threads() { return N; }
  static unsigned thread_rank() { return block_rank() & (N - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  static void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    (void)::histo_sim::tile_collective(Op::syncwarp, N, 0, 0, file, line);
  }
  template <typename T>
  T shfl(const T& value, unsigned src_rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "Collectives with tiles larger than 32 threads are limited to types of up to 8 bytes");
    return ::histo_sim::from_bits<T>(
        ::histo_sim::tile_collective(Op::shfl, N, ::histo_sim::to_bits(value), int(src_rank), file, line));
  }
  int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(::histo_sim::tile_collective(Op::any, N, predicate ? 1 : 0, 0, file, line));
  }
  int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(::histo_sim::tile_collective(Op::all, N, predicate ? 1 : 0, 0, file, line));
  }

 protected:
  multi_warp_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(false, 0, N, thread_rank()), meta_rank_(meta_rank), meta_size_(meta_size) {}

 private:
  unsigned meta_rank_, meta_size_;
};
}  // namespace details

template <unsigned N>
class thread_block_tile<N, void>
    : public std::conditional_t<(N > 32), details::multi_warp_tile<N>, details::warp_tile<N>> {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32 || N == 64 || N == 128 ||
                    N == 256 || N == 512,
                "CPU simulator, as CUDA: thread_block_tile<N> and tiled_partition<N> take N = 1, 2, 4, 8, "
                "16, 32, 64, 128, 256 or 512");
  using Base = std::conditional_t<(N > 32), details::multi_warp_tile<N>, details::warp_tile<N>>;

 protected:
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : Base(meta_rank, meta_size) {}
};

// What tiled_partition<N>(parent) returns; it converts to thread_block_tile<N>.
template <unsigned N, typename Parent>
class thread_block_tile : public thread_block_tile<N, void> {
 public:
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_block_tile<N, void>(meta_rank, meta_size) {}
};

template <unsigned N>
thread_block_tile<N, thread_block> tiled_partition(const thread_block&) {
  return thread_block_tile<N, thread_block>(details::block_rank() / N, (details::block_size() + N - 1) / N);
}
template <unsigned N, unsigned M, typename P>
thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P>&) {
  static_assert(N <= M, "tiled_partition<N>(tile): a tile splits only into smaller tiles");
  return thread_block_tile<N, thread_block_tile<M, P>>((details::block_rank() & (M - 1)) / N, M / N);
}
template <typename Group>
thread_group tiled_partition(const Group&, unsigned) {
  static_assert(details::always_false<Group>::value,
                "CPU simulator: tiled_partition(group, size) with a run-time size is not simulated: "
                "write tiled_partition<size>(group)");
  __builtin_unreachable();
}

class coalesced_group;
inline coalesced_group coalesced_threads(const char* file = __builtin_FILE(), int line = __builtin_LINE());
namespace details {
inline coalesced_group coalesced_of(unsigned mask);  // the lanes of `mask`, as a group
}

// The lanes of the warp that call coalesced_threads() together (as __activemask() sees them).
class coalesced_group : public thread_group {
  using Op = ::histo_sim::WarpOp;

 public:
  unsigned size() const { return size_; }
  unsigned num_threads() const { return size_; }
  unsigned thread_rank() const { return unsigned(__builtin_popcount(mask_ & ((1u << details::lane()) - 1u))); }
  unsigned meta_group_rank() const { return 0; }
  unsigned meta_group_size() const { return 1; }
  unsigned get_mask() const { return mask_; }

  void sync(const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    (void)details::vote(Op::syncwarp, mask_, 0, file, line);
  }
  template <typename T>
  T shfl(const T& value, int src_rank, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    const int lane = size_ == 32 ? src_rank : details::lane_of_rank(mask_, unsigned(src_rank));
    return details::shuffle(Op::shfl, mask_, value, lane, 32, file, line);
  }
  template <typename T>
  T shfl_down(const T& value, unsigned delta, const char* file = __builtin_FILE(),
              int line = __builtin_LINE()) const {
    if (size_ == 32) return details::shuffle(Op::shfl_down, mask_, value, int(delta), 32, file, line);
    const unsigned rank = thread_rank() + delta;
    const int lane = rank < size_ ? details::lane_of_rank(mask_, rank) : int(details::lane());
    return details::shuffle(Op::shfl, mask_, value, lane, 32, file, line);
  }
  template <typename T>
  T shfl_up(const T& value, unsigned delta, const char* file = __builtin_FILE(),
            int line = __builtin_LINE()) const {
    if (size_ == 32) return details::shuffle(Op::shfl_up, mask_, value, int(delta), 32, file, line);
    const unsigned rank = thread_rank();
    const int lane = delta <= rank ? details::lane_of_rank(mask_, rank - delta) : int(details::lane());
    return details::shuffle(Op::shfl, mask_, value, lane, 32, file, line);
  }
  int any(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(details::vote(Op::any, mask_, predicate ? 1 : 0, file, line));
  }
  int all(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return int(details::vote(Op::all, mask_, predicate ? 1 : 0, file, line));
  }
  // Bit i: the group's thread of rank i.
  unsigned ballot(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) const {
    return pack(unsigned(details::vote(Op::ballot, mask_, predicate ? 1 : 0, file, line)));
  }

 private:
  explicit coalesced_group(unsigned mask)
      : thread_group(false, mask, unsigned(__builtin_popcount(mask)),
                     unsigned(__builtin_popcount(mask & ((1u << details::lane()) - 1u)))),
        mask_(mask),
        size_(unsigned(__builtin_popcount(mask))) {}
  unsigned pack(unsigned lanes) const {
    unsigned out = 0, rank = 0;
    for (int j = 0; j < 32; ++j)
      if (mask_ >> j & 1u) out |= (lanes >> j & 1u) << rank++;
    return out;
  }
  friend coalesced_group coalesced_threads(const char*, int);
  friend coalesced_group details::coalesced_of(unsigned);
  unsigned mask_, size_;
};

inline coalesced_group coalesced_threads(const char* file, int line) {
  return coalesced_group(unsigned(details::vote(::histo_sim::WarpOp::activemask, 0, 0, file, line)));
}

// The lanes of `group` that pass the same label (binary_partition: the same truth value), as a
// coalesced group: __match_any_sync over the group's lanes.
inline coalesced_group details::coalesced_of(unsigned mask) { return coalesced_group(mask); }
template <typename Label>
coalesced_group labeled_partition(const coalesced_group& group, Label label, const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
  return details::coalesced_of(unsigned(details::vote(::histo_sim::WarpOp::match_any, group.get_mask(),
                                                ::histo_sim::to_bits(label), file, line)));
}
template <unsigned N, typename P, typename Label>
coalesced_group labeled_partition(const thread_block_tile<N, P>& tile, Label label, const char* file = __builtin_FILE(),
                                  int line = __builtin_LINE()) {
  static_assert(N <= 32, "labeled_partition takes a tile of one warp at most");
  return details::coalesced_of(unsigned(details::vote(::histo_sim::WarpOp::match_any, tile.build_mask(),
                                                ::histo_sim::to_bits(label), file, line)));
}
template <typename Group>
coalesced_group binary_partition(const Group& group, bool predicate, const char* file = __builtin_FILE(),
                                 int line = __builtin_LINE()) {
  return labeled_partition(group, unsigned(predicate), file, line);
}

// cg::sync(group): the group's barrier.
template <typename Group>
void sync(const Group& group, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  group.sync(file, line);
}

// The grid (this_grid()): its ranks and sizes. Its sync() is not simulated: the simulator runs
// a grid's blocks one after another (or a few at once), so a grid-wide barrier could never be
// passed; a program that calls it does not compile (nor is cudaLaunchCooperativeKernel here).
class grid_group {
 public:
  static unsigned long long num_threads() { return num_blocks() * details::block_size(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() { return block_rank() * details::block_size() + details::block_rank(); }
  static unsigned long long num_blocks() { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
  static unsigned long long block_rank() { return blockIdx.x + 1ull * gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 group_dim() { return gridDim; }
  template <typename T = void>
  void sync(const char* = nullptr, int = 0) const {
    static_assert(details::always_false<T>::value,
                  "CPU simulator: grid_group::sync() (and cg::sync(grid)) is not simulated: a grid's blocks "
                  "run one after another, so a grid-wide barrier could never be passed (nor is "
                  "cudaLaunchCooperativeKernel)");
  }
};
inline grid_group this_grid() { return grid_group(); }

}  // namespace cooperative_groups

#ifdef HISTO_SIM_TCB
#pragma clang attribute pop
#endif
