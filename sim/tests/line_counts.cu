// The counters by source line (histo_sim::line_counts): a kernel whose every access has a line
// of its own, with counts known in advance, must show each count on its line, with the line's
// text, and the lines must add up to the launch's counters, metric by metric. Prints each
// difference; exit 0 when there is none.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo_sim/counters.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr unsigned kGrid = 4, kBlock = 64, kWords = 64;

// Each statement that touches memory on a line of its own (main finds them by their text).
// The host compiler splits the 16-byte load into four 4-byte ones, which the trace joins again:
// one expression. The two loads of adjacent words are two statements, two loads on the GPU.
__global__ void lines_kernel(const unsigned char* d_in, const uint4* d_vectors, const unsigned* d_words,
                             unsigned* d_sums, unsigned* d_out) {
  __shared__ unsigned s_words[kWords];
  const unsigned t = threadIdx.x;
  const unsigned i = blockIdx.x * blockDim.x + t;
  const unsigned value = d_in[i];
  const uint4 v = d_vectors[i];
  const unsigned even = d_words[2 * i];
  const unsigned odd = d_words[2 * i + 1];
  s_words[t] = value;
  __syncthreads();
  const unsigned sum = s_words[(t % 32) * 32 % kWords];
  d_sums[i] = sum + v.x + v.y + v.z + v.w + even + odd;
  if (t % 32 == 0) atomicAdd(d_out, value);
  if (t % 32 == 0) atomicExch(d_out + 1, value);
  atomicAdd(d_out + 2, 5u);
}

// The number of the line of this file that reads `text` (after its indentation), or 0.
unsigned line_of(const std::string& text) {
  std::ifstream in(__FILE__);
  unsigned number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t begin = line.find_first_not_of(' ');
    if (begin != std::string::npos && line.substr(begin) == text) return number;
  }
  return 0;
}

}  // namespace

int main() {
  if (!histo_sim::counters_available()) {
    std::printf("SKIPPED: %s\n", histo_sim::counters_unavailable_reason());
    return 77;
  }
  const size_t n = size_t(kGrid) * kBlock;
  std::vector<unsigned char> data(n, 7);
  histo::DeviceBuffer<unsigned char> d_in(n);
  d_in.upload(data.data(), n);
  std::vector<unsigned> words(4 * n, 1);
  histo::DeviceBuffer<uint4> d_vectors(n);
  CUDA_CHECK(cudaMemcpy(d_vectors.get(), words.data(), n * sizeof(uint4), cudaMemcpyHostToDevice));
  histo::DeviceBuffer<unsigned> d_words(2 * n);
  d_words.upload(words.data(), 2 * n);
  histo::DeviceBuffer<unsigned> d_sums(n);
  histo::DeviceBuffer<unsigned> d_out(3);
  CUDA_CHECK(cudaMemset(d_out.get(), 0, 3 * sizeof(unsigned)));
  histo_sim::counters_begin();
  lines_kernel<<<kGrid, kBlock>>>(d_in.get(), d_vectors.get(), d_words.get(), d_sums.get(),
                                  d_out.get());
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<histo_sim::LaunchCounters> launches = histo_sim::counters_end();
  const std::vector<histo_sim::LineCounts> lines = histo_sim::line_counts(launches);
  int wrong = 0;

  // The lines add up to the launch, metric by metric.
  histo_sim::MemoryCounts total;
  for (const histo_sim::LineCounts& l : lines) total += l.counts;
  const std::vector<histo_sim::Metric> a = histo_sim::metrics(launches.at(0)), b = histo_sim::metrics(total);
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].value != b[k].value) {
      std::printf("%s: %llu for the launch, %llu over its lines\n", a[k].name,
                  (unsigned long long)a[k].value, (unsigned long long)b[k].value);
      ++wrong;
    }

  // Each count on its own line, with the line's text.
  using M = histo_sim::MemoryCounts;
  const uint64_t warps = kGrid * kBlock / 32;
  struct Expected {
    const char* text;
    uint64_t M::*field;
    uint64_t value;
  };
  const char* const load = "const unsigned value = d_in[i];";
  const char* const store = "s_words[t] = value;";
  const char* const conflict = "const unsigned sum = s_words[(t % 32) * 32 % kWords];";
  const char* const vector = "const uint4 v = d_vectors[i];";
  const char* const even = "const unsigned even = d_words[2 * i];";
  const char* const odd = "const unsigned odd = d_words[2 * i + 1];";
  const char* const global_store = "d_sums[i] = sum + v.x + v.y + v.z + v.w + even + odd;";
  const char* const atomic = "if (t % 32 == 0) atomicAdd(d_out, value);";
  const char* const exchange = "if (t % 32 == 0) atomicExch(d_out + 1, value);";
  const char* const uniform = "atomicAdd(d_out + 2, 5u);";

  const Expected expected[] = {
      {load, &M::global_load_requests, warps},
      {load, &M::global_load_sectors, warps},  // a warp's 32 bytes: one sector
      {load, &M::dram_read_bytes, n},
      // One 16-byte load per lane: one request per warp, its 512 bytes 16 sectors (four 4-byte
      // loads would be four requests of 16 sectors each).
      {vector, &M::global_load_requests, warps},
      {vector, &M::global_load_sectors, 16 * warps},
      {vector, &M::dram_read_bytes, n * 16},
      // Two statements, two loads: a request each, 4 of a lane's 8 bytes, 256 bytes a warp.
      {even, &M::global_load_requests, warps},
      {even, &M::global_load_sectors, 8 * warps},
      {odd, &M::global_load_requests, warps},
      {odd, &M::global_load_sectors, 8 * warps},
      {store, &M::shared_store_instructions, warps},
      {store, &M::shared_store_wavefronts, warps},
      {store, &M::shared_store_ideal, warps},
      {conflict, &M::shared_load_instructions, warps},
      // A warp's lanes read words 0 and 32, both in bank 0: two wavefronts, one a conflict.
      {conflict, &M::shared_load_wavefronts, 2 * warps},
      {conflict, &M::shared_load_ideal, warps},
      {global_store, &M::global_store_requests, warps},
      {global_store, &M::global_store_sectors, 4 * warps},  // 32 lanes x 4 bytes: 4 sectors
      {atomic, &M::global_atomic_requests, warps},
      {atomic, &M::global_atomic_sectors, warps},  // one lane on one word: one pass
      {atomic, &M::global_atom_requests, 0},       // a RED
      {exchange, &M::global_atomic_requests, warps},
      {exchange, &M::global_atom_requests, warps},  // an ATOM: there is no RED form
      {exchange, &M::global_atom_sectors, warps},
      {uniform, &M::global_atomic_requests, warps},
      // nvcc makes this one leader lane's add (its SASS says so, which this test's build does
      // not read: perfmodel.cuda_programs checks that, global_atomics:every_atomic); here 32.
      {uniform, &M::global_atomic_sectors, 32 * warps},
      {uniform, &M::global_atom_requests, 0},
  };
  for (const Expected& e : expected) {
    const unsigned number = line_of(e.text);
    const std::string where = "line_counts.cu:" + std::to_string(number);
    const histo_sim::LineCounts* found = nullptr;
    for (const histo_sim::LineCounts& l : lines)
      if (l.where == where) found = &l;
    if (!number || !found) {
      std::printf("no counts on %s (`%s`); the lines are:", where.c_str(), e.text);
      for (const histo_sim::LineCounts& l : lines) std::printf(" %s", l.where.c_str());
      std::printf("\n");
      ++wrong;
      continue;
    }
    if (found->text != e.text) {
      std::printf("%s: its text is \"%s\", expected \"%s\"\n", where.c_str(), found->text.c_str(), e.text);
      ++wrong;
    }
    if (found->counts.*(e.field) != e.value) {
      std::printf("%s (`%s`): a count is %llu, expected %llu\n", where.c_str(), e.text,
                  (unsigned long long)(found->counts.*(e.field)), (unsigned long long)e.value);
      ++wrong;
    }
  }
  std::printf("%zu lines, %d differences\n", lines.size(), wrong);
  return wrong ? 1 : 0;
}
