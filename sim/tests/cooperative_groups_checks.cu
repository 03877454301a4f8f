// Cooperative groups are checked as the intrinsics they map to: `cooperative_groups_checks CASE`.
//   divergent_sync   cg::sync(cta) that thread 0 skips: the launch fails as a divergent
//                    __syncthreads() does, naming the line of cg::sync.
//   tile_divergent   half of a tile of 16 calls tile.shfl_down, the other half returns: the
//                    shuffle waits for lanes that have left (the tile's mask is its 16 lanes).
//   coalesced_rank   a coalesced group of the even lanes shuffles from a rank past its size: the
//                    lane that rank names is not in the group's mask (undefined on a GPU).
// CMakeLists.txt here checks what each prints.
#include <cooperative_groups.h>

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

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  unsigned* d_out = nullptr;
  cudaMalloc(&d_out, 64 * sizeof(unsigned));
  if (std::strcmp(which, "divergent_sync") == 0) {
    divergent_sync<<<1, 64>>>(d_out);
  } else if (std::strcmp(which, "tile_divergent") == 0) {
    tile_divergent<<<1, 32>>>(d_out);
  } else if (std::strcmp(which, "coalesced_rank") == 0) {
    coalesced_rank<<<1, 32>>>(d_out);
  } else {
    std::printf("usage: cooperative_groups_checks divergent_sync|tile_divergent|coalesced_rank\n");
    return 2;
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", cudaGetErrorName(e), cudaGetErrorString(e));
  cudaFree(d_out);
  return 0;
}
