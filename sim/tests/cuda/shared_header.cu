// Per-block sums of the input bytes in a type T (32- and 64-bit), a tree reduction in dynamic
// shared memory that comes from an included header (shared_memory.cuh), one kernel template
// launched for two types.
#include <cuda_runtime.h>

#include "check.cuh"
#include "shared_memory.cuh"

template <class T>
__global__ void block_sums(const unsigned char* in, size_t n, T* sums) {
  T* s_part = SharedMemory<T>();
  T mine = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    mine += in[i];
  s_part[threadIdx.x] = mine;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) s_part[threadIdx.x] += s_part[threadIdx.x + stride];
    __syncthreads();  // this level in before the next reads it
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = s_part[0];
}

template <class T>
bool check_sums(const char* name, const std::vector<unsigned char>& data, const unsigned char* d_in,
                int blocks, int threads, int repeats) {
  T* d_sums;
  CHECK(cudaMalloc(&d_sums, blocks * sizeof(T)));
  auto run = [&] { block_sums<T><<<blocks, threads, threads * sizeof(T)>>>(d_in, data.size(), d_sums); };
  run();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<T> sums(blocks);
  CHECK(cudaMemcpy(sums.data(), d_sums, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  unsigned long long got = 0, want = 0;
  for (T s : sums) got += s;
  for (unsigned char c : data) want += c;
  std::printf("%s %s: %llu (expected %llu)\n", got == want ? "ok" : "WRONG", name, got, want);
  time_kernel(name, repeats, run);
  CHECK(cudaFree(d_sums));
  return got == want;
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const std::vector<unsigned char> data = make_bytes(args.bytes, 9);
  unsigned char* d_in;
  CHECK(cudaMalloc(&d_in, data.size()));
  CHECK(cudaMemcpy(d_in, data.data(), data.size(), cudaMemcpyHostToDevice));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  bool ok = check_sums<unsigned int>("block_sums<unsigned int>", data, d_in, sms * 4, 512, args.repeats);
  ok = check_sums<unsigned long long>("block_sums<unsigned long long>", data, d_in, sms * 4, 512,
                                      args.repeats) && ok;
  CHECK(cudaFree(d_in));
  return ok ? 0 : 1;
}
