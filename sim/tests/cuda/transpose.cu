// A square matrix of floats transposed four ways, as NVIDIA's transpose sample writes them: tiles
// of 32 x 32 elements, blocks of 32 x 8 threads, each thread moving four elements of its tile.
//   copy               reads and writes rows (coalesced both ways): the yardstick
//   transpose_naive    reads rows, writes columns: each warp's store touches 32 sectors
//   transpose_shared   through a tile in shared memory, so both global accesses are rows; the
//                      tile's column reads have 32-way bank conflicts
//   transpose_padded   the same with one column of padding: no bank conflicts
#include <cuda_runtime.h>

#include <cmath>

#include "check.cuh"

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void copy(float* out, const float* in, int width) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) out[size_t(y + j) * width + x] = in[size_t(y + j) * width + x];
}

__global__ void transpose_naive(float* out, const float* in, int width) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) out[size_t(x) * width + y + j] = in[size_t(y + j) * width + x];
}

__global__ void transpose_shared(float* out, const float* in, int width) {
  __shared__ float tile[kTile][kTile];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * width + x];
  __syncthreads();  // the whole tile in before any thread reads a column of it
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) out[size_t(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float* out, const float* in, int width) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * width + x];
  __syncthreads();  // the whole tile in before any thread reads a column of it
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kBlockRows) out[size_t(y + j) * width + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  // The largest width, a multiple of the tile, whose matrix fits in the input's bytes.
  const int width = int(std::sqrt(double(args.bytes / sizeof(float)))) / kTile * kTile;
  const size_t elements = size_t(width) * width, bytes = elements * sizeof(float);
  std::vector<float> in(elements), transposed(elements), out(elements);
  for (size_t i = 0; i < elements; ++i) in[i] = float(i % 16777213);
  for (int r = 0; r < width; ++r)
    for (int c = 0; c < width; ++c) transposed[size_t(c) * width + r] = in[size_t(r) * width + c];
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, bytes));
  CHECK(cudaMalloc(&d_out, bytes));
  CHECK(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice));
  const dim3 grid(width / kTile, width / kTile), block(kTile, kBlockRows);

  bool ok = true;
  auto check = [&](const char* name, const std::vector<float>& want) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < elements; ++i)
      if (out[i] != want[i]) {
        std::printf("WRONG %s: element %zu is %g, expected %g\n", name, i, out[i], want[i]);
        ok = false;
        return;
      }
    std::printf("ok %s\n", name);
  };
  auto copy_run = [&] { copy<<<grid, block>>>(d_out, d_in, width); };
  auto naive_run = [&] { transpose_naive<<<grid, block>>>(d_out, d_in, width); };
  auto shared_run = [&] { transpose_shared<<<grid, block>>>(d_out, d_in, width); };
  auto padded_run = [&] { transpose_padded<<<grid, block>>>(d_out, d_in, width); };
  copy_run();
  check("copy", in);
  naive_run();
  check("transpose_naive", transposed);
  shared_run();
  check("transpose_shared", transposed);
  padded_run();
  check("transpose_padded", transposed);
  time_kernel("copy", args.repeats, copy_run);
  time_kernel("transpose_naive", args.repeats, naive_run);
  time_kernel("transpose_shared", args.repeats, shared_run);
  time_kernel("transpose_padded", args.repeats, padded_run);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return ok ? 0 : 1;
}
