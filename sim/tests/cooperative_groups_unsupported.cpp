// What of cooperative groups the simulator does not model fails to compile, saying so: built
// with -DCASE_<name> by CMakeLists.txt here, which checks the compiler's message.
#include <cuda_runtime.h>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void kernel(int* out) {
#if defined(CASE_grid_sync)
  cg::grid_group grid = cg::this_grid();
  grid.sync();
#elif defined(CASE_tile_1024)
  auto tile = cg::tiled_partition<1024>(cg::this_thread_block());
  out[0] = int(tile.thread_rank());
#elif defined(CASE_runtime_tile)
  cg::thread_group tile = cg::tiled_partition(cg::this_thread_block(), 32);
  tile.sync();
#endif
  out[1] = 0;
}
