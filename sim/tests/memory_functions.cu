// Device code's memcpy, memset and memmove, and the compiler's own copies, seen by the access
// trace (sim/src/trace.cpp): `memory_functions CASE` launches a small kernel and prints what the
// simulator saw. The CTest cases (CMakeLists.txt here) check it: the bytes a memcpy reads cost
// what plain loads of them cost, a counter incremented through memcpy races as a plain ++, and a
// call through a pointer to a library function, which the trace cannot see into, fails its launch.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo_sim/counters.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr unsigned kBins = 256;
constexpr size_t kWords = 4096;

// Sums words read with plain loads, or through memcpy, or through __builtin_memcpy.
template <int kHow>
__global__ void sum_kernel(const uint32_t* d_words, size_t n, uint32_t* d_sums) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  uint32_t word;
  if (kHow == 0) word = d_words[i];
  if (kHow == 1) memcpy(&word, d_words + i, sizeof word);
  if (kHow == 2) __builtin_memcpy(&word, d_words + i, sizeof word);
  d_sums[i] = word + 1;
}

// Copies 64-byte records whole: the compiler's own copy.
struct Record {
  uint32_t field[16];
};
__global__ void copy_kernel(const Record* d_from, size_t n, Record* d_to) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) d_to[i] = d_from[i];
}

// bins[v]++ as a memcpy read, an increment and a memcpy write: a race between threads.
__global__ void memcpy_increment_kernel(const unsigned char* d_in, size_t n, uint32_t* d_bins) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t count;
    memcpy(&count, &d_bins[d_in[i]], sizeof count);
    ++count;
    memcpy(&d_bins[d_in[i]], &count, sizeof count);
  }
}

// Zeroes shared bins with memset in one thread, with no barrier before the others read them.
__global__ void memset_shared_kernel(uint32_t* d_bins) {
  __shared__ uint32_t s_bins[kBins];
  if (threadIdx.x == 0) memset(s_bins, 0, sizeof s_bins);
  d_bins[threadIdx.x] = s_bins[threadIdx.x];
}

// Calls a function through a pointer, on the kernel's input.
__device__ size_t count_nonzero(const char* text) {
  size_t k = 0;
  while (text[k]) ++k;
  return k;
}
__global__ void pointer_kernel(const char* d_text, uint32_t* d_out, size_t (*length)(const char*)) {
  d_out[threadIdx.x] = uint32_t(length(d_text));
}

std::string outcome() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "no hazard" : cudaGetErrorString(e);
}

// The global-memory counters of one launch of `run`.
template <typename Run>
histo_sim::LaunchCounters counted(Run run) {
  histo_sim::counters_begin();
  run();
  CUDA_CHECK_LAUNCH();
  const std::vector<histo_sim::LaunchCounters> launches = histo_sim::counters_end();
  return launches.at(0);
}

void print(const char* what, const histo_sim::LaunchCounters& c) {
  std::printf("%s: %llu load requests, %llu load sectors, %llu store requests, %llu store sectors\n",
              what, (unsigned long long)c.global_load_requests, (unsigned long long)c.global_load_sectors,
              (unsigned long long)c.global_store_requests, (unsigned long long)c.global_store_sectors);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  if (which == "memcpy_counted") {  // the same loads, whichever way they are written
    std::vector<uint32_t> h_words(kWords, 7);
    histo::DeviceBuffer<uint32_t> d_words(kWords), d_sums(kWords);
    CUDA_CHECK(cudaMemcpy(d_words.get(), h_words.data(), kWords * 4, cudaMemcpyHostToDevice));
    const auto plain = counted([&] { sum_kernel<0><<<16, 256>>>(d_words.get(), kWords, d_sums.get()); });
    const auto call = counted([&] { sum_kernel<1><<<16, 256>>>(d_words.get(), kWords, d_sums.get()); });
    const auto builtin = counted([&] { sum_kernel<2><<<16, 256>>>(d_words.get(), kWords,
                                                                  d_sums.get()); });
    print("plain loads", plain);
    print("memcpy", call);
    print("__builtin_memcpy", builtin);
    const bool same = call.global_load_sectors == plain.global_load_sectors &&
                      call.global_load_requests == plain.global_load_requests &&
                      builtin.global_load_sectors == plain.global_load_sectors && plain.global_load_sectors > 0;
    std::printf("%s\n", same ? "memcpy costs what plain loads cost" : "memcpy is counted differently");
  } else if (which == "struct_copy_counted") {  // 64 bytes read and written per thread
    const size_t n = 1024;
    histo::DeviceBuffer<Record> d_from(n), d_to(n);
    CUDA_CHECK(cudaMemset(d_from.get(), 1, n * sizeof(Record)));
    const auto c = counted([&] { copy_kernel<<<4, 256>>>(d_from.get(), n, d_to.get()); });
    print("struct copy", c);
    // As nvcc compiles it: four 16-byte loads and stores per record, each lane's in a sector of
    // its own (the records are 64 bytes apart).
    const uint64_t requests = n / 32 * 4, sectors = n * 4;
    std::printf("%s\n", c.global_load_requests == requests && c.global_load_sectors == sectors &&
                                c.global_store_requests == requests && c.global_store_sectors == sectors
                            ? "every byte of the copy counted"
                            : "the copy is not counted in full");
  } else if (which == "memcpy_race" || which == "memset_shared_race") {
    const size_t n = 5000;
    std::vector<unsigned char> h_in(n);
    for (size_t i = 0; i < n; ++i) h_in[i] = (unsigned char)(i * 2654435761u >> 13);
    histo::DeviceBuffer<unsigned char> d_in(n);
    histo::DeviceBuffer<uint32_t> d_bins(kBins);
    CUDA_CHECK(cudaMemcpy(d_in.get(), h_in.data(), n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(uint32_t)));
    if (which == "memcpy_race")
      memcpy_increment_kernel<<<4, 128>>>(d_in.get(), n, d_bins.get());
    else
      memset_shared_kernel<<<1, kBins>>>(d_bins.get());
    std::printf("%s\n", outcome().c_str());
  } else if (which == "library_pointer" || which == "own_pointer") {  // strlen: the C library's
    histo::DeviceBuffer<char> d_text(16);
    histo::DeviceBuffer<uint32_t> d_out(32);
    CUDA_CHECK(cudaMemcpy(d_text.get(), "device text", 12, cudaMemcpyHostToDevice));
    size_t (*length)(const char*) = which == "library_pointer" ? &strlen : &count_nonzero;
    pointer_kernel<<<1, 32>>>(d_text.get(), d_out.get(), length);
    std::printf("%s\n", outcome().c_str());
  } else {
    std::printf("usage: memory_functions memcpy_counted|struct_copy_counted|memcpy_race|"
                "memset_shared_race|library_pointer|own_pointer\n");
    return 2;
  }
  return 0;
}
