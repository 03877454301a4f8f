// A histogram of an 8-bit image: a 2D grid of 16 x 16-thread blocks, each thread one column of
// pixels in its block's rows (a grid-stride loop in y), bins per block in shared memory.
// No #include <cuda_runtime.h>: nvcc includes it, and so does the simulator's build.
#include "check.cuh"

constexpr int kTile = 16;  // threads per block in x and in y

template <int kBins>
__global__ void __launch_bounds__(kTile * kTile)
histogram_2d(const unsigned char* image, int width, int height, unsigned int* bins) {
  __shared__ unsigned int s_bins[kBins];
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int b = tid; b < kBins; b += blockDim.x * blockDim.y) s_bins[b] = 0;
  __syncthreads();  // bins zeroed before any thread counts
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < height; y += gridDim.y * blockDim.y)
    if (x < width) atomicAdd(&s_bins[image[y * width + x] % kBins], 1u);
  __syncthreads();  // every count in before the merge
  for (int b = tid; b < kBins; b += blockDim.x * blockDim.y)
    if (s_bins[b]) atomicAdd(&bins[b], s_bins[b]);
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const int width = 4096;
  const int height = int(args.bytes / width);
  const std::vector<unsigned char> image = make_bytes(size_t(width) * height, 7);
  unsigned char* d_image;
  unsigned int* d_bins;
  CHECK(cudaMalloc(&d_image, image.size()));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_image, image.data(), image.size(), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  const dim3 block(kTile, kTile);
  const dim3 grid((width + kTile - 1) / kTile, 16);  // 16 rows of blocks stride over the image
  auto run = [&] {
    CHECK(cudaMemsetAsync(d_bins, 0, 256 * sizeof(unsigned int), stream));
    histogram_2d<256><<<grid, block, 0, stream>>>(d_image, width, height, d_bins);
  };
  run();
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  std::vector<unsigned> bins(256);
  CHECK(cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  const bool ok = same("histogram_2d<256>", bins, cpu_histogram(image));
  time_kernel("histogram_2d<256>", args.repeats, run);

  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(d_image));
  CHECK(cudaFree(d_bins));
  return ok ? 0 : 1;
}
