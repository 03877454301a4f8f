// The host arrays a lab function reads or writes through a pointer argument, where the trusted
// side of a split grader passes host memory (a CPU replay of the kernel): their sizes, from the
// call's other arguments (remote.hpp's ArrayExtent). Every other pointer argument of a lab
// function is a device address.
#pragma once

#include "remote.hpp"

#if __has_include("lab05.h")
#include "lab05.h"

namespace histo_remote {
// lab05's replay: count_into_column(s_packed, column, d_in, n, first, stride) and
// merge_row(s_packed, row) on the replay's array (kReplayWords) and the n input bytes.
template <> struct ArrayExtent<&lab05::count_into_column, 0> {
  static constexpr bool known = true;
  static size_t bytes(const void* const*) { return lab05::kReplayWords * sizeof(uint32_t); }
};
template <> struct ArrayExtent<&lab05::count_into_column, 2> {
  static constexpr bool known = true;
  static size_t bytes(const void* const* args) { return *static_cast<const size_t*>(args[3]); }
};
template <> struct ArrayExtent<&lab05::merge_row, 0> {
  static constexpr bool known = true;
  static size_t bytes(const void* const*) { return lab05::kReplayWords * sizeof(uint32_t); }
};
}  // namespace histo_remote
#endif
