// Global atomics, as textbooks first use them:
//   text_histogram          the textbook's first parallel histogram: every letter a-z counted
//                           with one atomicAdd into 7 global bins of four letters (interleaved,
//                           grid-stride), so all lanes of a warp update the same few words
//   every_atomic            each thread applies every integer atomic (add, sub, exch, max, min,
//                           inc, dec, CAS, and, or, xor) to one word each, as NVIDIA's
//                           simpleAtomicIntrinsics sample does; a grid that grows with the input
//   every_atomic_one_block  the same on the sample's own size, one block of 64 threads: a launch
//                           whose work is far below its fixed cost
#include <cuda_runtime.h>

#include "check.cuh"

constexpr int kLetterBins = 7;
constexpr int kWords = 11;

__global__ void text_histogram(const char* data, size_t length, unsigned int* histo) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < length; i += size_t(gridDim.x) * blockDim.x) {
    const int alphabet_position = data[i] - 'a';
    if (alphabet_position >= 0 && alphabet_position < 26) atomicAdd(&histo[alphabet_position / 4], 1u);
  }
}

__device__ void apply_every_atomic(unsigned int* g) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&g[0], 10u);
  atomicSub(&g[1], 10u);
  atomicExch(&g[2], tid);
  atomicMax(&g[3], tid);
  atomicMin(&g[4], tid);
  atomicInc(&g[5], 17u);
  atomicDec(&g[6], 137u);
  atomicCAS(&g[7], tid - 1, tid);
  atomicAnd(&g[8], 2 * tid + 7);
  atomicOr(&g[9], 1u << (tid % 32));
  atomicXor(&g[10], tid);
}

__global__ void every_atomic(unsigned int* g) { apply_every_atomic(g); }
__global__ void every_atomic_one_block(unsigned int* g) { apply_every_atomic(g); }

// What every_atomic leaves in g after `threads` threads (0 .. threads - 1), from initial().
std::vector<unsigned> initial() {
  std::vector<unsigned> g(kWords, 0);
  g[4] = 0xFFFFFFFFu;  // min
  g[8] = 0xFFu;        // and
  return g;
}

bool check_words(const char* name, const std::vector<unsigned>& g, unsigned threads) {
  std::vector<unsigned> want = initial();
  want[0] = 10u * threads;
  want[1] = 0u - 10u * threads;
  want[3] = threads - 1;
  want[4] = 0;
  want[5] = threads % 18;                   // inc wraps after 17
  want[6] = (138 - threads % 138) % 138;    // dec from 0 wraps to 137
  for (unsigned t = 0; t < threads; ++t) {
    want[8] &= 2 * t + 7;
    want[9] |= 1u << (t % 32);
    want[10] ^= t;
  }
  // exch and CAS leave some thread's index, which depends on the order the threads ran in.
  want[2] = g[2] < threads ? g[2] : ~0u;
  want[7] = g[7] < threads ? g[7] : ~0u;
  for (int w = 0; w < kWords; ++w)
    if (g[w] != want[w]) {
      std::printf("WRONG %s: word %d is %u, expected %u\n", name, w, g[w], want[w]);
      return false;
    }
  std::printf("ok %s\n", name);
  return true;
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const size_t n = args.bytes;
  // Text-like bytes: letters, spaces, some punctuation.
  std::vector<unsigned char> text = make_bytes(n, 5);
  for (unsigned char& c : text) c = (c % 7 == 0) ? ' ' : (c % 31 == 0) ? ',' : (unsigned char)('a' + c % 26);
  std::vector<unsigned> expected(kLetterBins, 0);
  for (unsigned char c : text)
    if (c >= 'a' && c <= 'z') ++expected[(c - 'a') / 4];

  char* d_text;
  unsigned int *d_histo, *d_words;
  CHECK(cudaMalloc(&d_text, n));
  CHECK(cudaMalloc(&d_histo, kLetterBins * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_words, kWords * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_text, text.data(), n, cudaMemcpyHostToDevice));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  bool ok = true;
  auto histogram_run = [&] {
    CHECK(cudaMemset(d_histo, 0, kLetterBins * sizeof(unsigned int)));
    text_histogram<<<sms * 8, 256>>>(d_text, n, d_histo);
  };
  histogram_run();
  CHECK(cudaGetLastError());
  std::vector<unsigned> histo(kLetterBins);
  CHECK(cudaMemcpy(histo.data(), d_histo, kLetterBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  ok = same("text_histogram", histo, expected) && ok;

  // One thread per 256 bytes of input: 65536 at 16 MiB.
  const unsigned threads = 256, blocks = unsigned(std::max<size_t>(1, n / 256 / threads));
  const std::vector<unsigned> start = initial();
  std::vector<unsigned> words(kWords);
  // Timed launches start from what the one before left: only the checked ones start afresh.
  auto every_run = [&] { every_atomic<<<blocks, threads>>>(d_words); };
  auto one_block_run = [&] { every_atomic_one_block<<<1, 64>>>(d_words); };
  CHECK(cudaMemcpy(d_words, start.data(), kWords * sizeof(unsigned int), cudaMemcpyHostToDevice));
  every_run();
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(words.data(), d_words, kWords * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  ok = check_words("every_atomic", words, blocks * threads) && ok;
  CHECK(cudaMemcpy(d_words, start.data(), kWords * sizeof(unsigned int), cudaMemcpyHostToDevice));
  one_block_run();
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(words.data(), d_words, kWords * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  ok = check_words("every_atomic_one_block", words, 64) && ok;

  time_kernel("text_histogram", args.repeats, histogram_run);
  time_kernel("every_atomic", args.repeats, every_run);
  time_kernel("every_atomic_one_block", args.repeats, one_block_run);

  CHECK(cudaFree(d_text));
  CHECK(cudaFree(d_histo));
  CHECK(cudaFree(d_words));
  return ok ? 0 : 1;
}
