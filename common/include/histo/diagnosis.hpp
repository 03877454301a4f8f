// Why a histogram came out wrong: the likely cause, fitted to the symptom in the bins and to what
// the kernel is built from (CaseInfo::parts, copied from its registry entry). A cause the kernel
// cannot have is never offered: no head or tail of vector loads for a kernel that reads bytes one
// by one, no wrapped 8-bit counter where every counter is 32 bits wide, a missing
// __syncthreads() only where the kernel has barriers. Where the threads took turns (the CPU
// simulator, a CPU replay) a plain read-modify-write loses nothing, so no race is suggested; in
// the simulator a missing barrier does lose counts, and is named instead.
#pragma once

#include "histo/grading.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace histo {

// One sentence (or a few joined by "or") naming the likely cause of `actual` differing from
// `expected`, whose bins sum to `expected_total`. A set info.hazard is not included here:
// compare_bins names it first.
std::string likely_cause(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t expected_total, const CaseInfo& info);

}  // namespace histo
