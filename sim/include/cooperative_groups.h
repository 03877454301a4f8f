// The CPU simulator's stand-in for <cooperative_groups.h>: the groups of one thread block,
// mapped onto the simulator's own barrier and warp collectives (cuda_runtime.h), so each is
// checked exactly as the intrinsic it maps to: cg::sync(block) and block.sync() are
// __syncthreads(); a tile's sync, shuffles and votes are __syncwarp, __shfl_*_sync and
// __ballot_sync / __any_sync / __all_sync / __match_*_sync with the tile's lanes as the mask and
// the tile's size as the shuffle width; a coalesced group's mask is __activemask(). Reports
// name that intrinsic and the line of the call in the program.
//
// Supported: this_thread_block(), thread_block, tiled_partition<N>(block or tile) for N = 1, 2,
// 4, 8, 16, 32 (thread_block_tile<N>), coalesced_threads() (coalesced_group), thread_group as a
// parameter type, cg::sync(group); cg::reduce in <cooperative_groups/reduce.h>. Anything else
// fails to compile: grid-wide groups (this_grid(), grid.sync()) and run-time tile sizes with a
// static_assert that says so, the rest (multi-grid and cluster groups, scan, memcpy_async,
// labeled and binary partitions) as an unknown name. See sim/README.md.
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
    else
      (void)details::vote(::histo_sim::WarpOp::syncwarp, mask_, 0, file, line);
  }

 protected:
  thread_group(bool block, unsigned mask, unsigned size, unsigned rank)
      : block_(block), mask_(mask), size_(size), rank_(rank) {}

 private:
  bool block_;
  unsigned mask_;  // a warp's group: its lanes
  unsigned size_, rank_;
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

// The scratch memory CUDA's tiles of more than 32 threads need: accepted, but such tiles are not
// simulated (tiled_partition<N> with N > 32 fails to compile).
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {};
template <typename Memory>
thread_block this_thread_block(Memory&) {
  return thread_block();
}

// A tile of N threads (N a power of two up to 32) of one warp: lanes [base, base + N).
template <unsigned N, typename Parent = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> : public thread_group {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "CPU simulator: thread_block_tile<N> and tiled_partition<N> take N = 1, 2, 4, 8, 16 or 32: "
                "tiles of more than one warp (N = 64 .. 1024, with block_tile_memory) are not simulated");
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
  thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(false, build_mask(), N, thread_rank()), meta_rank_(meta_rank), meta_size_(meta_size) {}

 private:
  unsigned meta_rank_, meta_size_;
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
  return thread_block_tile<N, thread_block_tile<M, P>>((details::lane() & (M - 1)) / N, M / N);
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
  unsigned mask_, size_;
};

inline coalesced_group coalesced_threads(const char* file, int line) {
  return coalesced_group(unsigned(details::vote(::histo_sim::WarpOp::activemask, 0, 0, file, line)));
}

// cg::sync(group): the group's barrier.
template <typename Group>
void sync(const Group& group, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  group.sync(file, line);
}

// Grid-wide groups: the simulator runs a grid's blocks one after another, so a grid-wide barrier
// could never be passed.
class grid_group {
 public:
  void sync() const {}
  unsigned long long size() const { return 0; }
  unsigned long long thread_rank() const { return 0; }
};
template <typename T = void>
grid_group this_grid() {
  static_assert(details::always_false<T>::value,
                "CPU simulator: cooperative_groups::this_grid() is not simulated: its blocks run one "
                "after another, so grid.sync() could never return (nor is cudaLaunchCooperativeKernel)");
  __builtin_unreachable();
}

}  // namespace cooperative_groups

#ifdef HISTO_SIM_TCB
#pragma clang attribute pop
#endif
