// The worker of a split grader (remote.hpp): links the submission, the course's
// student-callable code and the engine, and answers the trusted side's calls on fds 3 and 4
// until it closes them. Whatever the submission does here reaches the trusted side only as the
// replies to its calls, read against what it asked.
#include "fields.hpp"

#include <cuda_runtime.h>

#include <cerrno>
#include <cstring>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <string>

#include <unistd.h>

namespace histo_remote {
namespace {

constexpr int kCalls = 3, kReplies = 4;

std::map<uint64_t, std::vector<char>> g_held;   // host arrays kept by key (put_array)
std::deque<std::vector<char>> g_this_call;      // host arrays of the current call only

// Host bytes an asynchronous copy reads: pinned here, kept until a synchronization that
// covers their stream.
struct Staged {
  cudaStream_t stream;
  void* bytes;
};
std::vector<Staged> g_staged;

void release_staged(bool all, cudaStream_t stream) {
  for (size_t i = 0; i < g_staged.size();) {
    if (all || g_staged[i].stream == stream) {
      cudaFreeHost(g_staged[i].bytes);
      g_staged[i] = g_staged.back();
      g_staged.pop_back();
    } else {
      ++i;
    }
  }
}

void copy(Reader& r, Writer& w) {
  auto* dst = reinterpret_cast<void*>(r.get_value<uintptr_t>());
  auto* src = reinterpret_cast<const void*>(r.get_value<uintptr_t>());
  const auto bytes = r.get_value<uint64_t>();
  const auto kind = r.get_value<cudaMemcpyKind>();
  const auto stream = reinterpret_cast<cudaStream_t>(r.get_value<uintptr_t>());
  const bool async = r.get_value<uint8_t>();
  const bool dst_host = r.get_value<uint8_t>();
  const bool src_host = r.get_value<uint8_t>();
  void* staged_in = nullptr;
  std::vector<char> out;
  if (src_host && bytes) {
    if (bytes > size_t(r.end() - r.here())) throw std::invalid_argument("a copy without its bytes");
    if (async) {
      if (cudaMallocHost(&staged_in, bytes) != cudaSuccess) throw std::bad_alloc();
      g_staged.push_back({stream, staged_in});
    } else {
      g_this_call.emplace_back(bytes);
      staged_in = g_this_call.back().data();
    }
    r.get(staged_in, bytes);
    src = staged_in;
  }
  if (dst_host && bytes) {
    out.resize(bytes);
    dst = out.data();
  }
  cudaError_t status = async ? cudaMemcpyAsync(dst, src, bytes, kind, stream)
                             : cudaMemcpy(dst, src, bytes, kind);
  // A copy to the host is read here once it has landed.
  if (async && dst_host && status == cudaSuccess) status = cudaStreamSynchronize(stream);
  w.put_value(status);
  if (dst_host && status == cudaSuccess && bytes) w.put(out.data(), bytes);
}

// Synchronizations release the staged bytes they cover.
void device_synchronize(Reader& r, Writer& w) {
  serve<&cudaDeviceSynchronize>(r, w);
  release_staged(true, nullptr);
}
void stream_synchronize(Reader& r, Writer& w) {
  const Reader at = r;
  serve<&cudaStreamSynchronize>(r, w);
  Reader again = at;
  again.get_value<PointerKind>();
  release_staged(false, reinterpret_cast<cudaStream_t>(again.get_value<uintptr_t>()));
}

#ifdef HISTO_SIM
// The trusted side's histo_sim::LargeInputs scopes, innermost last.
std::vector<std::unique_ptr<histo_sim::LargeInputs>> g_large_inputs;
void large_inputs_begin(Reader& r, Writer&) {
  g_large_inputs.push_back(std::make_unique<histo_sim::LargeInputs>(r.get_value<uint64_t>()));
}
void large_inputs_end(Reader&, Writer&) {
  if (g_large_inputs.empty()) throw std::invalid_argument("no LargeInputs scope to end");
  g_large_inputs.pop_back();
}
#endif

using MallocFn = cudaError_t (*)(void**, size_t);
const std::unordered_map<std::string, Handler>& hand_written() {
  static const std::unordered_map<std::string, Handler> table = {
      {"cudaMalloc(void**, unsigned long)", serve<static_cast<MallocFn>(&cudaMalloc)>},
      {"cudaFree(void*)", serve<&cudaFree>},
      {"copy", copy},
#ifdef HISTO_SIM
      {"LargeInputs begin", large_inputs_begin},
      {"LargeInputs end", large_inputs_end},
#endif
  };
  return table;
}

// The handler of every call the trusted side makes: the generated ones, with the
// synchronizations' own (found by function, whatever the engine's spelling of their keys) and
// the hand-written calls.
std::unordered_map<std::string, Handler> handlers() {
  std::unordered_map<std::string, Handler> all = generated_handlers();
  const auto device_sync = reinterpret_cast<void (*)()>(&cudaDeviceSynchronize);
  const auto stream_sync = reinterpret_cast<void (*)()>(&cudaStreamSynchronize);
  for (const auto& [key, function] : generated_functions()) {
    if (function == device_sync) all[key] = device_synchronize;
    if (function == stream_sync) all[key] = stream_synchronize;
  }
  for (const auto& [key, handler] : hand_written()) all[key] = handler;
  return all;
}

}  // namespace

std::vector<char>& held_array(Reader& r) {
  const auto bytes = r.get_value<uint64_t>();
  const auto key = r.get_value<uint64_t>();
  const bool sent = r.get_value<uint8_t>();
  std::vector<char>* array;
  if (key == 0) {
    g_this_call.emplace_back();
    array = &g_this_call.back();
  } else {
    array = &g_held[key];
  }
  if (sent) {
    if (bytes > size_t(r.end() - r.here()))
      throw std::invalid_argument("an array without its bytes");
    array->resize(bytes);
    r.get(array->data(), bytes);
  } else if (array->size() != bytes) {
    throw std::invalid_argument("an array this worker does not hold");
  }
  return *array;
}

histo::Variant Codec<histo::Variant>::get(Reader& r) {
  histo::Variant v{};
  v.lab = Codec<const char*>::get(r);
  v.name = Codec<const char*>::get(r);
  v.technique = Codec<const char*>::get(r);
  const std::string key = r.get_string();
  const auto& functions = generated_functions();
  const auto found = functions.find(key);
  if (found == functions.end()) throw std::invalid_argument("no launcher " + key + " here");
  v.launch = reinterpret_cast<histo::ByteHistogramFn>(found->second);
  v.expect = r.get_value<histo::Expect>();
  v.parts = r.get_value<unsigned>();
  return v;
}

}  // namespace histo_remote

int main() {
  using namespace histo_remote;
  const auto all = handlers();
  std::vector<char> call;
  for (;;) {
    if (!read_message(kCalls, call)) return 0;  // the trusted side is done
    Reader r(call.data(), call.data() + call.size());
    Writer w;
    w.put_value<uint8_t>(0);
    try {
      const std::string key = r.get_string();
      const auto handler = all.find(key);
      if (handler == all.end()) throw std::invalid_argument("no function " + key + " here");
      handler->second(r, w);
      if (!r.done()) throw std::invalid_argument("a call longer than its arguments");
    } catch (const std::exception& e) {
      w = Writer();
      w.put_value<uint8_t>(1);
      w.put_value(classify(e));
      w.put_string(e.what());
    }
    g_this_call.clear();
    std::fflush(stdout);
    std::vector<char>& bytes = w.bytes();
    const uint64_t size = bytes.size() - sizeof(uint64_t);
    std::memcpy(bytes.data(), &size, sizeof size);
    if (!write_all(kReplies, bytes.data(), bytes.size())) return 3;
  }
}
