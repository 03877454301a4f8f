// The trusted side of a split grader (remote.hpp): the channel to the worker, the device
// allocations it made (so that a pointer argument is known for a device address or host
// memory), and the CUDA runtime calls whose arguments a generated stub cannot carry: host
// memory a copy reads or writes, pinned host memory (the trusted side's own).
#include "fields.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

namespace histo_remote {
namespace {

struct Channel {
  int to = -1, from = -1;
  pid_t pid = -1;               // the worker, when this process started it
  std::string failed;           // why the worker's part ended ("" while it answers)
};

std::mutex g_mutex;  // one call at a time: the grader's threads share the worker

// Both on one core, with the worker this starts: every call hands the CPU over and back, which
// one core does several times faster than two. Graders run side by side (ctest -j) each take a
// core no other holds (a lock per core in /tmp, held for this process's life); where every core
// is taken, the scheduler decides.
void pin_to_a_free_core() {
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mine)) continue;
    const std::string lock = "/tmp/histo-grader-core-" + std::to_string(cpu) + ".lock";
    const int fd = open(lock.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      continue;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    sched_setaffinity(0, sizeof one, &one);
    return;  // the lock stays held until this process ends
  }
}

// Starts this program's worker (its own path and "_worker") with the channel on its fds 3 and
// 4, and nothing else of this process's.
void start_worker(Channel& c) {
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
  if (length <= 0) throw WorkerFailed("this program cannot find its own path");
  const std::string worker = std::string(self, size_t(length)) + "_worker";
  int calls[2], replies[2];
  if (pipe2(calls, O_CLOEXEC) != 0 || pipe2(replies, O_CLOEXEC) != 0)
    throw WorkerFailed("no pipe for the worker");
  pin_to_a_free_core();
  const pid_t pid = fork();
  if (pid < 0) throw WorkerFailed("the worker could not be started");
  if (pid == 0) {
    // Above every fd the two may land on, then onto 3 and 4 (dup2 leaves no close-on-exec).
    const int in = fcntl(calls[0], F_DUPFD, 10), out = fcntl(replies[1], F_DUPFD, 10);
    if (in < 0 || out < 0 || dup2(in, 3) < 0 || dup2(out, 4) < 0) _exit(127);
    for (int fd = 5; fd < 1024; ++fd) close(fd);
    execl(worker.c_str(), worker.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(calls[0]);
  close(replies[1]);
  c.to = calls[1];
  c.from = replies[0];
  c.pid = pid;
}

Channel& channel() {
  static Channel c = [] {
    Channel made;
    signal(SIGPIPE, SIG_IGN);
    if (const char* fds = std::getenv("HISTO_WORKER_FDS")) {
      // Handed over by grade.py, whose sandbox runs the worker: "CALLS,REPLIES".
      char* rest = nullptr;
      made.to = int(std::strtol(fds, &rest, 10));
      made.from = (rest && *rest == ',') ? int(std::strtol(rest + 1, nullptr, 10)) : -1;
      if (made.to < 0 || made.from < 0)
        made.failed = "HISTO_WORKER_FDS is not two descriptors: " + std::string(fds);
    } else {
      try {
        start_worker(made);
      } catch (const WorkerFailed& e) {
        made.failed = e.what();
      }
    }
    return made;
  }();
  return c;
}

// Why the worker stopped answering, as plainly as this side can tell.
std::string ended(Channel& c, const std::string& during) {
  std::string how = "the submission's process ended";
  int status = 0;
  if (c.pid > 0 && waitpid(c.pid, &status, 0) == c.pid) {
    if (WIFSIGNALED(status))
      how += " (signal " + std::to_string(WTERMSIG(status)) + ")";
    else if (WIFEXITED(status))
      how += " (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    c.pid = -1;
  }
  return how + " during " + during + ": the test cannot go on";
}

// Once the worker's part has ended, this process exits 3 whatever its tests concluded: a test
// that caught the WorkerFailed (CHECK_THROWS) and went on cannot pass (grade.py passes a test
// only with exit code 0; the report still says where the worker stopped).
void fail_on_exit() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  std::atexit([] {
    std::fflush(nullptr);
    _exit(3);
  });
}

// The worker's device allocations, by start: [start, start + bytes).
std::map<uintptr_t, size_t>& allocations() {
  static std::map<uintptr_t, size_t> a;
  return a;
}

}  // namespace

Reader transact(Writer& call) {
  static std::vector<char> reply;
  std::lock_guard<std::mutex> lock(g_mutex);
  Channel& c = channel();
  if (!c.failed.empty()) throw WorkerFailed(c.failed);
  std::vector<char>& bytes = call.bytes();
  std::string key;
  {
    Reader r(bytes.data() + sizeof(uint64_t), bytes.data() + bytes.size());
    key = r.get_string();
  }
  try {
    // One write for the call, its length first (Writer keeps room for it).
    const uint64_t size = bytes.size() - sizeof(uint64_t);
    std::memcpy(bytes.data(), &size, sizeof size);
    if (!write_all(c.to, bytes.data(), bytes.size())) throw WorkerFailed("");
    if (!read_message(c.from, reply)) throw WorkerFailed("");
  } catch (const WorkerFailed& e) {
    c.failed = *e.what()
                   ? std::string("the submission's process gave ") + e.what() + " during " + key
                   : ended(c, key);
    fail_on_exit();
    throw WorkerFailed(c.failed);
  }
  Reader r(reply.data(), reply.data() + reply.size());
  const auto status = r.get_value<uint8_t>();
  if (status == 1) {
    const auto kind = r.get_value<Thrown>();
    rethrow(kind, r.get_string());
  }
  if (status != 0) {
    c.failed = "the submission's process gave a reply of no known kind during " + key;
    fail_on_exit();
    throw WorkerFailed(c.failed);
  }
  return r;
}

bool worker_failed() { return !channel().failed.empty(); }

void unreadable_reply(const WorkerFailed& e) {
  Channel& c = channel();
  if (c.failed.empty()) c.failed = std::string("the submission's process gave ") + e.what();
  fail_on_exit();
  throw WorkerFailed(c.failed);
}

std::unordered_map<std::string, std::string>& remembered() {
  static std::unordered_map<std::string, std::string> replies;
  return replies;
}

bool is_device_address(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto& all = allocations();
  auto it = all.upper_bound(a);
  if (it == all.begin()) return false;
  --it;
  return a < it->first + it->second || (it->second == 0 && a == it->first);
}

void put_array(Writer& w, const void* p, size_t bytes, bool cacheable) {
  // What the worker was last sent of each (address, size): a replay that passes the same input
  // thread after thread sends it once. Compared whole each time: a key stands for these bytes.
  static std::map<std::pair<const void*, size_t>, std::pair<uint64_t, std::vector<char>>> sent;
  static uint64_t next_key = 1;
  const char* data = static_cast<const char*>(p);
  w.put_value<uint64_t>(bytes);
  if (cacheable) {
    auto& [key, copy] = sent[{p, bytes}];
    if (key != 0 && std::equal(copy.begin(), copy.end(), data)) {
      w.put_value<uint64_t>(key);
      w.put_value<uint8_t>(0);  // held
      return;
    }
    key = next_key++;
    copy.assign(data, data + bytes);
    w.put_value<uint64_t>(key);
  } else {
    w.put_value<uint64_t>(0);
  }
  w.put_value<uint8_t>(1);
  w.put(data, bytes);
}

void Codec<histo::Variant>::put(Writer& w, const histo::Variant& v) {
  const auto& keys = generated_keys();
  const auto found = keys.find(reinterpret_cast<void (*)()>(v.launch));
  if (found == keys.end()) throw std::logic_error(v.id() + ": its launcher is not the worker's");
  Codec<const char*>::put(w, v.lab);
  Codec<const char*>::put(w, v.name);
  Codec<const char*>::put(w, v.technique);
  w.put_string(found->second);
  w.put_value(v.expect);
  w.put_value(v.parts);
}

}  // namespace histo_remote

using histo_remote::call;
using histo_remote::Reader;
using histo_remote::Writer;
using MallocFn = cudaError_t (*)(void**, size_t);

// Device memory: the worker's, known here by address and size.
cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  const cudaError_t status =
      call<static_cast<MallocFn>(&cudaMalloc)>("cudaMalloc(void**, unsigned long)", ptr, bytes);
  if (status == cudaSuccess) histo_remote::allocations()[reinterpret_cast<uintptr_t>(*ptr)] = bytes;
  return status;
}

cudaError_t cudaFree(void* ptr) {
  const cudaError_t status = call<&cudaFree>("cudaFree(void*)", ptr);
  if (status == cudaSuccess) histo_remote::allocations().erase(reinterpret_cast<uintptr_t>(ptr));
  return status;
}

// Pinned host memory is this process's own: a copy from it carries its bytes.
cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
  *ptr = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}

namespace {

// A copy: the host side's bytes go with the call (source) or come back (destination). An
// asynchronous copy from the host is queued in the worker from its own pinned copy of the bytes;
// one to the host waits for its stream there.
cudaError_t remote_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                        cudaStream_t stream, bool async) {
  const bool dst_host = !histo_remote::is_device_address(dst);
  const bool src_host = !histo_remote::is_device_address(src);
  Writer w;
  w.put_string("copy");
  w.put_value(reinterpret_cast<uintptr_t>(dst));
  w.put_value(reinterpret_cast<uintptr_t>(src));
  w.put_value<uint64_t>(bytes);
  w.put_value(kind);
  w.put_value(reinterpret_cast<uintptr_t>(stream));
  w.put_value<uint8_t>(async);
  w.put_value<uint8_t>(dst_host);
  w.put_value<uint8_t>(src_host);
  if (src_host && bytes) w.put(src, bytes);
  if (histo_remote::worker_failed()) return cudaErrorUnknown;
  Reader r = histo_remote::transact(w);
  try {
    const auto status = r.get_value<cudaError_t>();
    if (dst_host && status == cudaSuccess && bytes) r.get(dst, bytes);
    if (!r.done()) throw histo_remote::WorkerFailed("a copy's reply of another size");
    return status;
  } catch (const histo_remote::WorkerFailed& e) {
    histo_remote::unreadable_reply(e);
  }
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return remote_copy(dst, src, bytes, kind, nullptr, false);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  return remote_copy(dst, src, bytes, kind, stream, true);
}

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"

// A scope of inputs of gigabytes: the worker holds one for as long as this object lives.
histo_sim::LargeInputs::LargeInputs(size_t device_bytes) : previous_bytes_(0) {
  Writer w;
  w.put_string("LargeInputs begin");
  w.put_value<uint64_t>(device_bytes);
  histo_remote::transact(w);
}

histo_sim::LargeInputs::~LargeInputs() {
  Writer w;
  w.put_string("LargeInputs end");
  try {
    histo_remote::transact(w);
  } catch (const std::exception&) {
    // The worker is gone or failed: its scope went with it, and the test says why already.
  }
}
#endif
