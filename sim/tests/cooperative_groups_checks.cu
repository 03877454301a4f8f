// Cooperative groups are checked as the intrinsics they map to: `cooperative_groups_checks CASE`.
//   divergent_sync   cg::sync(cta) that thread 0 skips: the launch fails as a divergent
//                    __syncthreads() does, naming the line of cg::sync.
//   tile_divergent   half of a tile of 16 calls tile.shfl_down, the other half returns: the
//                    shuffle goes on without them (CUDA waits for the mask's lanes that have not
//                    returned), and lanes 4-7 read lanes 8-11, which have: undefined on a GPU.
//   coalesced_rank   a coalesced group of the even lanes shuffles from a rank past its size: the
//                    lane that rank names is not in the group's mask (undefined on a GPU).
//   multi_warp     tiles of several warps (64 and 128 threads) and the grid's ranks: cg::reduce
//                  (int and float), shfl, any, all, their meta ranks and tiles of 32 in them.
//   partitions     labeled_partition of a coalesced group, binary_partition of a tile of 32.
//   tile_partial   a tile of 64 in a block of 96 threads: its last tile would be one warp, and
//                  its sync waits on a GPU for a warp that does not exist.
// CMakeLists.txt here checks what each prints.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstdio>
#include <cstring>

namespace cg = cooperative_groups;

namespace {

__global__ void divergent_sync(unsigned* d_out) {
  cg::thread_block cta = cg::this_thread_block();
  if (cta.thread_rank() != 0) cg::sync(cta);
  d_out[cta.thread_rank()] = cta.thread_rank();
}

__global__ void tile_divergent(unsigned* d_out) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  if (tile.thread_rank() >= 8) return;
  d_out[threadIdx.x] = tile.shfl_down(threadIdx.x, 4u);
}

__global__ void coalesced_rank(unsigned* d_out) {
  if (threadIdx.x % 2 != 0) return;
  cg::coalesced_group even = cg::coalesced_threads();
  d_out[threadIdx.x] = even.shfl(threadIdx.x, 20);
}

// d_out[t]: 1 when every check of thread t holds (block of 256 threads, grid of 2).
__global__ void multi_warp(unsigned* d_out) {
  cg::thread_block cta = cg::this_thread_block();
  auto t128 = cg::tiled_partition<128>(cta);
  auto t64 = cg::tiled_partition<64>(cta);
  auto w32 = cg::tiled_partition<32>(t64);
  const unsigned t = cta.thread_rank();
  bool ok = t128.size() == 128 && t128.thread_rank() == t % 128 && t128.meta_group_rank() == t / 128 &&
            t128.meta_group_size() == 2 && t64.meta_group_rank() == t / 64 && t64.meta_group_size() == 4 &&
            w32.meta_group_rank() == t % 64 / 32 && w32.meta_group_size() == 2;
  // The sum of the ranks 0..127 of each tile of 128, as int and as float (exact).
  ok = ok && cg::reduce(t128, int(t128.thread_rank()), cg::plus<int>()) == 127 * 128 / 2;
  ok = ok && cg::reduce(t128, float(t128.thread_rank()), cg::plus<float>()) == 127.f * 128 / 2;
  ok = ok && cg::reduce(t64, t, cg::greater<unsigned>()) == t / 64 * 64 + 63;
  ok = ok && t64.shfl(t, 40) == t / 64 * 64 + 40;
  ok = ok && t64.any(t % 64 == 63) && !t64.all(t % 64 != 63) && t128.all(t < 256);
  cg::sync(t64);
  const cg::grid_group grid = cg::this_grid();
  ok = ok && grid.thread_rank() == blockIdx.x * 256ull + t && grid.size() == 512 && grid.num_blocks() == 2 &&
       grid.block_rank() == blockIdx.x;
  d_out[grid.thread_rank()] = ok ? 1 : 0;
}

// d_out[t]: 1 when thread t's partitions hold: of its warp's lanes by lane % 3 (coalesced), and
// of its tile of 32 by lane parity (binary_partition), with cg::reduce over the latter.
__global__ void partitions(unsigned* d_out) {
  const unsigned lane = threadIdx.x % 32;
  const cg::coalesced_group thirds = cg::labeled_partition(cg::coalesced_threads(), lane % 3);
  const unsigned members = lane % 3 == 2 ? 10 : 11;  // lanes 0..31: 11 of rests 0 and 1, 10 of 2
  bool ok = thirds.size() == members && thirds.thread_rank() == lane / 3;
  const cg::coalesced_group parity = cg::binary_partition(cg::tiled_partition<32>(cg::this_thread_block()), lane & 1);
  // The sum of the even lanes 0 + 2 + ... + 30 = 240, of the odd ones 256.
  ok = ok && parity.size() == 16 && cg::reduce(parity, lane, cg::plus<unsigned>()) == (lane & 1 ? 256u : 240u);
  d_out[threadIdx.x] = ok ? 1 : 0;
}

__global__ void tile_partial(unsigned* d_out) {
  auto t64 = cg::tiled_partition<64>(cg::this_thread_block());
  t64.sync();
  d_out[threadIdx.x] = t64.thread_rank();
}

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  unsigned* d_out = nullptr;
  cudaMalloc(&d_out, 512 * sizeof(unsigned));
  if (std::strcmp(which, "divergent_sync") == 0) {
    divergent_sync<<<1, 64>>>(d_out);
  } else if (std::strcmp(which, "tile_divergent") == 0) {
    tile_divergent<<<1, 32>>>(d_out);
  } else if (std::strcmp(which, "coalesced_rank") == 0) {
    coalesced_rank<<<1, 32>>>(d_out);
  } else if (std::strcmp(which, "multi_warp") == 0) {
    multi_warp<<<2, 256>>>(d_out);
    unsigned h[512] = {}, passed = 0;
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    for (unsigned x : h) passed += x;
    std::printf("%u of 512 threads' checks hold\n", passed);
  } else if (std::strcmp(which, "partitions") == 0) {
    partitions<<<1, 64>>>(d_out);
    unsigned h[64] = {}, passed = 0;
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    for (unsigned x : h) passed += x;
    std::printf("%u of 64 threads' checks hold\n", passed);
  } else if (std::strcmp(which, "tile_partial") == 0) {
    tile_partial<<<1, 96>>>(d_out);
  } else {
    std::printf("usage: cooperative_groups_checks divergent_sync|tile_divergent|coalesced_rank|multi_warp|partitions|"
                "tile_partial\n");
    return 2;
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
  cudaFree(d_out);
  return 0;
}
