#include "histo/datasets.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace histo {
namespace {

constexpr size_t kChunk = size_t(1) << 16;  // each chunk has its own random stream

// A tiny stream generator seeded per chunk (splitmix64 steps).
struct Stream {
  uint64_t state;
  uint64_t next() { return mix64(state += 0x9E3779B97F4A7C15ull); }
  uint32_t below(uint32_t bound) { return uint32_t((next() >> 32) * bound >> 32); }
};

Stream chunk_stream(uint64_t seed, uint64_t salt, size_t chunk) {
  return Stream{mix64(seed ^ mix64(salt * 0x100000001B3ull + chunk))};
}

// Inverse-CDF lookup: 65536 uniform slots mapped onto symbols with the given weights.
template <size_t N>
std::vector<uint8_t> make_lookup(const std::array<double, N>& weights) {
  std::vector<uint8_t> table(65536);
  double total = 0;
  for (double w : weights) total += w;
  size_t slot = 0;
  double cumulative = 0;
  for (size_t s = 0; s < N; ++s) {
    cumulative += weights[s];
    const size_t end = (s + 1 == N) ? table.size() : size_t(cumulative / total * table.size());
    for (; slot < end; ++slot) table[slot] = uint8_t(s);
  }
  return table;
}

// Geometric mass over 256 values (ratio 0.85), then scattered so the heavy bins are not 0,1,2...
const std::vector<uint8_t>& skewed_lookup() {
  static const std::vector<uint8_t> table = [] {
    std::array<double, 256> w{};
    for (int v = 0; v < 256; ++v) w[v] = std::pow(0.85, v);
    std::vector<uint8_t> t = make_lookup(w);
    for (auto& b : t) b = uint8_t(b * 167 + 13);  // 167 is odd: a permutation of 0..255
    return t;
  }();
  return table;
}

// English letter frequencies (percent), 'a'..'z'.
constexpr std::array<double, 26> kLetterFreq = {
    8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4,
    6.7, 7.5, 1.9, 0.095, 6.0, 6.3, 9.1, 2.8, 0.98, 2.4, 0.15, 2.0, 0.074};

const std::vector<uint8_t>& letter_lookup() {
  static const std::vector<uint8_t> table = make_lookup(kLetterFreq);
  return table;
}

void fill_chunk(Dataset dataset, uint64_t seed, uint8_t* out, size_t first, size_t count) {
  Stream rng = chunk_stream(seed, uint64_t(dataset) + 1, first / kChunk);
  switch (dataset) {
    case Dataset::uniform:
      for (size_t i = 0; i < count; i += 8) {
        uint64_t r = rng.next();
        for (size_t k = 0; k < 8 && i + k < count; ++k, r >>= 8) out[i + k] = uint8_t(r);
      }
      break;
    case Dataset::degenerate:
      std::fill(out, out + count, uint8_t(mix64(seed) >> 56));
      break;
    case Dataset::skewed: {
      const auto& table = skewed_lookup();
      for (size_t i = 0; i < count; i += 4) {
        uint64_t r = rng.next();
        for (size_t k = 0; k < 4 && i + k < count; ++k, r >>= 16) out[i + k] = table[r & 0xFFFF];
      }
      break;
    }
    case Dataset::text: {
      // Words of 1-10 letters drawn by English frequency; a space after each word; every so
      // often ", " or ". " and a capital letter; a newline about every 70 characters.
      const auto& letters = letter_lookup();
      size_t i = 0, line = 0;
      bool capital = true;
      while (i < count) {
        const uint64_t r = rng.next();
        const size_t len = 1 + (r % 7) + ((r >> 8) % 4);
        for (size_t k = 0; k < len && i < count; ++k, ++i, ++line) {
          uint8_t c = uint8_t('a' + letters[rng.next() & 0xFFFF]);
          if (capital) c = uint8_t(c - 'a' + 'A'), capital = false;
          out[i] = c;
        }
        const uint32_t p = uint32_t(r >> 32) % 100;
        if ((p < 6 || p >= 94) && i < count) {
          out[i++] = (p < 6) ? ',' : '.';
          capital = (p >= 94);
          ++line;
        }
        if (i < count) {
          const bool newline = line > 70;
          out[i++] = newline ? '\n' : ' ';
          line = newline ? 0 : line + 1;
        }
      }
      break;
    }
    case Dataset::image: {
      // Pixel (row, col) of a 4096-wide image: two soft gradients and a bright disc, plus
      // noise of +-4 grey levels. Neighbouring pixels are close, as in real photographs.
      for (size_t i = 0; i < count; ++i) {
        const size_t pixel = first + i;
        const int64_t row = int64_t(pixel / 4096) % 4096, col = int64_t(pixel % 4096);
        int v = int((col * 160) / 4096 + (row * 60) / 4096);
        const int64_t dr = row - 2048, dc = col - 1500;
        if (dr * dr + dc * dc < 700 * 700) v += 70;
        v += int(rng.below(9)) - 4;
        out[i] = uint8_t(std::clamp(v, 0, 255));
      }
      break;
    }
    case Dataset::alternating: {
      const uint8_t a = uint8_t(mix64(seed) >> 56);
      const uint8_t b = uint8_t(a + 1 + (mix64(seed + 1) % 255));  // never equal to a
      for (size_t i = 0; i < count; ++i) out[i] = ((first + i) & 1) ? b : a;
      break;
    }
    case Dataset::runs: {
      size_t i = 0;
      while (i < count) {
        const uint64_t r = rng.next();
        const size_t len = std::min(count - i, size_t(1 + (r >> 8) % 512));
        std::fill(out + i, out + i + len, uint8_t(r));
        i += len;
      }
      break;
    }
  }
}

// Runs fill(first, count) over 64 KiB chunks, on several threads for large n.
template <typename Fill>
void for_each_chunk(size_t n, Fill fill) {
  const size_t chunks = (n + kChunk - 1) / kChunk;
  const unsigned threads = static_cast<unsigned>(std::min<size_t>(
      std::max(1u, std::thread::hardware_concurrency()), std::max<size_t>(1, chunks / 64)));
  auto work = [&](unsigned t) {
    for (size_t c = t; c < chunks; c += threads)
      fill(c * kChunk, std::min(kChunk, n - c * kChunk));
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
}

}  // namespace

uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

const std::vector<Dataset>& all_datasets() {
  static const std::vector<Dataset> list = {Dataset::uniform, Dataset::degenerate,
                                            Dataset::skewed,  Dataset::text,
                                            Dataset::image,   Dataset::alternating,
                                            Dataset::runs};
  return list;
}

const char* dataset_name(Dataset dataset) {
  switch (dataset) {
    case Dataset::uniform: return "uniform";
    case Dataset::degenerate: return "degenerate";
    case Dataset::skewed: return "skewed";
    case Dataset::text: return "text";
    case Dataset::image: return "image";
    case Dataset::alternating: return "alternating";
    case Dataset::runs: return "runs";
  }
  return "?";
}

Dataset dataset_from_name(const std::string& name) {
  std::string known;
  for (Dataset d : all_datasets()) {
    if (name == dataset_name(d)) return d;
    known += std::string(known.empty() ? "" : ", ") + dataset_name(d);
  }
  throw std::invalid_argument("unknown dataset '" + name + "' (known: " + known + ")");
}

void generate(Dataset dataset, uint64_t seed, uint8_t* h_out, size_t n) {
  for_each_chunk(n, [&](size_t first, size_t count) {
    fill_chunk(dataset, seed, h_out + first, first, count);
  });
}

std::vector<uint8_t> make_dataset(Dataset dataset, size_t n, uint64_t seed) {
  std::vector<uint8_t> data(n);
  generate(dataset, seed, data.data(), n);
  return data;
}

void generate_distinct(unsigned distinct, uint64_t seed, uint8_t* h_out, size_t n) {
  if (distinct < 1 || distinct > 256)
    throw std::invalid_argument("generate_distinct: distinct must be in 1..256");
  for_each_chunk(n, [&](size_t first, size_t count) {
    Stream rng = chunk_stream(seed, 100 + distinct, first / kChunk);
    for (size_t i = 0; i < count; ++i)
      h_out[first + i] = uint8_t(rng.below(distinct) * 256 / distinct);
  });
}

std::vector<uint8_t> make_runs_of(size_t n, size_t run, uint64_t seed) {
  if (run == 0) throw std::invalid_argument("make_runs_of: run must be at least 1");
  std::vector<uint8_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = uint8_t(mix64(seed + i / run) >> 56);
  return data;
}

std::vector<uint16_t> make_wide_dataset(bool skewed, uint32_t num_bins, size_t n, uint64_t seed) {
  if (num_bins < 1 || num_bins > 65536)
    throw std::invalid_argument("make_wide_dataset: num_bins must be in 1..65536");
  std::vector<uint16_t> data(n);
  Stream rng{mix64(seed ^ 0x57494445ull)};
  for (size_t i = 0; i < n; ++i) {
    uint32_t v = rng.below(num_bins);
    // Skewed: the minimum of three draws, so low bins are much more frequent.
    if (skewed) v = std::min({v, rng.below(num_bins), rng.below(num_bins)});
    data[i] = uint16_t(v);
  }
  return data;
}

}  // namespace histo
