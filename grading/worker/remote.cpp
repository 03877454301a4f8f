// What both sides of a split grader share (remote.hpp): the strings they keep, the exceptions
// that cross.
#include "remote.hpp"

#include <algorithm>
#include <cerrno>
#include <deque>
#include <mutex>
#include <new>

#include <unistd.h>

namespace histo_remote {

const char* keep(std::string s) {
  static std::mutex m;
  static std::deque<std::string> kept;
  std::lock_guard<std::mutex> lock(m);
  for (const std::string& k : kept)
    if (k == s) return k.c_str();
  kept.push_back(std::move(s));
  return kept.back().c_str();
}

bool write_all(int fd, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= size_t(n);
  }
  return true;
}

bool read_message(int fd, std::vector<char>& out) {
  // What was read past one message stays for the next (none, in a strict exchange).
  static thread_local std::vector<char> buffer;
  static thread_local size_t have = 0;
  auto fill = [&](size_t want) {
    while (have < want) {
      if (buffer.size() < want) buffer.resize(std::min(want, have + (size_t(1) << 20)));
      const ssize_t n = ::read(fd, buffer.data() + have, buffer.size() - have);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      have += size_t(n);
    }
    return true;
  };
  uint64_t length;
  if (!fill(sizeof length)) return false;
  std::memcpy(&length, buffer.data(), sizeof length);
  if (length == 0 || length > (uint64_t(1) << 34) || !fill(sizeof length + length)) return false;
  out.assign(buffer.begin() + sizeof length, buffer.begin() + long(sizeof length + length));
  have -= sizeof length + length;
  std::memmove(buffer.data(), buffer.data() + sizeof length + length, have);
  return true;
}

Thrown classify(const std::exception& e) {
  // Most derived first.
  if (dynamic_cast<const std::length_error*>(&e)) return Thrown::length_error;
  if (dynamic_cast<const std::out_of_range*>(&e)) return Thrown::out_of_range;
  if (dynamic_cast<const std::invalid_argument*>(&e)) return Thrown::invalid_argument;
  if (dynamic_cast<const std::domain_error*>(&e)) return Thrown::domain_error;
  if (dynamic_cast<const std::logic_error*>(&e)) return Thrown::logic_error;
  if (dynamic_cast<const std::range_error*>(&e)) return Thrown::range_error;
  if (dynamic_cast<const std::overflow_error*>(&e)) return Thrown::overflow_error;
  if (dynamic_cast<const std::underflow_error*>(&e)) return Thrown::underflow_error;
  if (dynamic_cast<const std::bad_alloc*>(&e)) return Thrown::bad_alloc;
  return Thrown::runtime_error;
}

void rethrow(Thrown kind, const std::string& what) {
  switch (kind) {
    case Thrown::invalid_argument: throw std::invalid_argument(what);
    case Thrown::length_error: throw std::length_error(what);
    case Thrown::out_of_range: throw std::out_of_range(what);
    case Thrown::domain_error: throw std::domain_error(what);
    case Thrown::logic_error: throw std::logic_error(what);
    case Thrown::range_error: throw std::range_error(what);
    case Thrown::overflow_error: throw std::overflow_error(what);
    case Thrown::underflow_error: throw std::underflow_error(what);
    case Thrown::bad_alloc: throw std::runtime_error("out of memory: " + what);
    default: throw std::runtime_error(what);
  }
}

}  // namespace histo_remote
