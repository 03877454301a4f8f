// A sum of n ints written with cooperative groups, as NVIDIA's reduction sample writes it:
// reduce_shared is a tree reduction in shared memory whose levels are separated by cg::sync(cta)
// and whose last warp finishes with tile32.shfl_down; reduce_cg sums a grid-stride loop per
// thread, then cg::reduce over each tiled_partition<32> and, through shared memory, over the
// block's warps. A second reduce_cg launch of one block adds the blocks' partial sums. tile_stats
// uses tiles of 16 threads (cg::reduce with cg::greater, cg::less and cg::bit_xor, ballot, any,
// all, shfl, shfl_up) and coalesced_threads() (one atomicAdd per group of threads that took a
// branch). Every result is checked against the host's.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "check.cuh"

namespace cg = cooperative_groups;

constexpr unsigned kThreads = 256;

// Each thread adds two elements (a block covers 2 * blockSize), then the tree in shared memory.
template <unsigned blockSize>
__global__ void reduce_shared(const int* g_idata, int* g_odata, unsigned n) {
  cg::thread_block cta = cg::this_thread_block();
  extern __shared__ int sdata[];
  const unsigned tid = threadIdx.x;
  const unsigned i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  int mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  cg::sync(cta);
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    cg::sync(cta);
  }
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) mySum += tile32.shfl_down(mySum, offset);
  }
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}

// A grid-stride sum per thread, cg::reduce per warp, then the warps' sums by the first warp.
__global__ void reduce_cg(const int* g_idata, int* g_odata, unsigned n) {
  __shared__ int s_warps[32];
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
  int threadVal = 0;
  for (unsigned i = blockIdx.x * blockDim.x + cta.thread_rank(); i < n; i += gridDim.x * blockDim.x)
    threadVal += g_idata[i];
  threadVal = cg::reduce(tile, threadVal, cg::plus<int>());
  if (tile.thread_rank() == 0) s_warps[tile.meta_group_rank()] = threadVal;
  cg::sync(cta);
  if (tile.meta_group_rank() == 0) {
    threadVal = tile.thread_rank() < tile.meta_group_size() ? s_warps[tile.thread_rank()] : 0;
    threadVal = cg::reduce(tile, threadVal, cg::plus<int>());
    if (tile.thread_rank() == 0) g_odata[blockIdx.x] = threadVal;
  }
}

// Per tile of 16: max, min, xor and the votes (bit r: rank r's value is negative; bit 16: any
// value above 100; bit 17: all above -100), stored by the tile's rank 0 at stats[4t .. 4t + 3];
// per element, the tile's values rotated by one rank (shfl) and its inclusive prefix sums
// (shfl_up); the count of positive values through coalesced_threads().
__global__ void tile_stats(const int* in, int* stats, int* rotated, int* prefix, int* positives,
                           unsigned n) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cta);
  const unsigned i = blockIdx.x * blockDim.x + cta.thread_rank();
  const int v = i < n ? in[i] : 0;
  const int hi = cg::reduce(tile, v, cg::greater<int>());
  const int lo = cg::reduce(tile, v, cg::less<int>());
  const int x = cg::reduce(tile, v, cg::bit_xor<int>());
  const unsigned negative = tile.ballot(v < 0);
  const bool any_big = tile.any(v > 100);
  const bool all_above = tile.all(v > -100);
  const unsigned t = i / 16;
  if (tile.thread_rank() == 0 && i < n) {
    stats[4 * t] = hi;
    stats[4 * t + 1] = lo;
    stats[4 * t + 2] = x;
    stats[4 * t + 3] = int(negative | (any_big ? 1u << 16 : 0u) | (all_above ? 1u << 17 : 0u));
  }
  const int next = tile.shfl(v, (tile.thread_rank() + 1) % tile.size());
  int sum = v;
  for (unsigned d = 1; d < tile.size(); d *= 2) {
    const int other = tile.shfl_up(sum, d);
    if (tile.thread_rank() >= d) sum += other;
  }
  tile.sync();
  if (i < n) {
    rotated[i] = next;
    prefix[i] = sum;
  }
  if (i < n && v > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    const int count = cg::reduce(active, 1, cg::plus<int>());
    if (active.thread_rank() == 0) atomicAdd(positives, count);
  }
}

bool check_int(const char* what, long long got, long long want) {
  if (got != want) {
    std::printf("WRONG %s: %lld, expected %lld\n", what, got, want);
    return false;
  }
  std::printf("ok %s\n", what);
  return true;
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const unsigned n = unsigned(args.bytes / sizeof(int));
  const std::vector<unsigned char> bytes = make_bytes(n, 11);
  std::vector<int> data(n);
  for (unsigned i = 0; i < n; ++i) data[i] = int(bytes[i]) - 100;  // -100 .. 155
  long long want = 0;
  for (int v : data) want += v;

  const unsigned shared_blocks = (n + 2 * kThreads - 1) / (2 * kThreads);
  const unsigned cg_blocks = 64;
  int *d_in, *d_partial, *d_sum;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_partial, shared_blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_sum, sizeof(int)));
  CHECK(cudaMemcpy(d_in, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  bool ok = true;
  int sum = 0;
  reduce_shared<kThreads><<<shared_blocks, kThreads, kThreads * sizeof(int)>>>(d_in, d_partial, n);
  CHECK(cudaGetLastError());
  reduce_cg<<<1, kThreads>>>(d_partial, d_sum, shared_blocks);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
  ok = check_int("reduce_shared + reduce_cg (cg::sync, tile32.shfl_down, cg::reduce)", sum, want) && ok;

  reduce_cg<<<cg_blocks, kThreads>>>(d_in, d_partial, n);
  CHECK(cudaGetLastError());
  reduce_cg<<<1, kThreads>>>(d_partial, d_sum, cg_blocks);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
  ok = check_int("reduce_cg + reduce_cg (cg::reduce over tiles of 32)", sum, want) && ok;

  // tile_stats on the first elements, a whole number of blocks.
  const unsigned m = std::min(n, 64u * kThreads) / kThreads * kThreads;
  int *d_stats, *d_rotated, *d_prefix, *d_positives;
  CHECK(cudaMalloc(&d_stats, m / 16 * 4 * sizeof(int)));
  CHECK(cudaMalloc(&d_rotated, m * sizeof(int)));
  CHECK(cudaMalloc(&d_prefix, m * sizeof(int)));
  CHECK(cudaMalloc(&d_positives, sizeof(int)));
  CHECK(cudaMemset(d_positives, 0, sizeof(int)));
  tile_stats<<<m / kThreads, kThreads>>>(d_in, d_stats, d_rotated, d_prefix, d_positives, m);
  CHECK(cudaGetLastError());
  std::vector<int> stats(m / 16 * 4), rotated(m), prefix(m);
  int positives = 0;
  CHECK(cudaMemcpy(stats.data(), d_stats, stats.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rotated.data(), d_rotated, m * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(prefix.data(), d_prefix, m * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&positives, d_positives, sizeof(int), cudaMemcpyDeviceToHost));
  int want_positives = 0;
  bool tiles_ok = true;
  for (unsigned t = 0; t < m / 16 && tiles_ok; ++t) {
    int hi = data[16 * t], lo = hi, x = 0, running = 0;
    unsigned votes = 0;
    bool any_big = false, all_above = true;
    for (unsigned r = 0; r < 16; ++r) {
      const int v = data[16 * t + r];
      hi = std::max(hi, v);
      lo = std::min(lo, v);
      x ^= v;
      votes |= unsigned(v < 0) << r;
      any_big = any_big || v > 100;
      all_above = all_above && v > -100;
      want_positives += v > 0;
      running += v;
      if (rotated[16 * t + r] != data[16 * t + (r + 1) % 16] || prefix[16 * t + r] != running) {
        std::printf("WRONG tile_stats: element %u: shfl %d (expected %d), shfl_up prefix %d (expected %d)\n",
                    16 * t + r, rotated[16 * t + r], data[16 * t + (r + 1) % 16], prefix[16 * t + r], running);
        tiles_ok = false;
      }
    }
    const int flags = int(votes | (any_big ? 1u << 16 : 0u) | (all_above ? 1u << 17 : 0u));
    if (stats[4 * t] != hi || stats[4 * t + 1] != lo || stats[4 * t + 2] != x || stats[4 * t + 3] != flags) {
      std::printf("WRONG tile_stats: tile %u: max %d min %d xor %d votes 0x%x, expected %d %d %d 0x%x\n", t,
                  stats[4 * t], stats[4 * t + 1], stats[4 * t + 2], stats[4 * t + 3], hi, lo, x, flags);
      tiles_ok = false;
    }
  }
  if (tiles_ok) std::printf("ok tile_stats (tiles of 16: cg::reduce max/min/xor, ballot, any, all, shfl, shfl_up)\n");
  ok = tiles_ok && check_int("tile_stats (coalesced_threads: positive values)", positives, want_positives) && ok;

  time_kernel("reduce_shared", args.repeats, [&] {
    reduce_shared<kThreads><<<shared_blocks, kThreads, kThreads * sizeof(int)>>>(d_in, d_partial, n);
  });
  time_kernel("reduce_cg", args.repeats, [&] { reduce_cg<<<cg_blocks, kThreads>>>(d_in, d_partial, n); });
  time_kernel("tile_stats", args.repeats, [&] {
    tile_stats<<<m / kThreads, kThreads>>>(d_in, d_stats, d_rotated, d_prefix, d_positives, m);
  });

  for (int* p : {d_in, d_partial, d_sum, d_stats, d_rotated, d_prefix, d_positives}) CHECK(cudaFree(p));
  return ok ? 0 : 1;
}
