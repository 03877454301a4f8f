// The read-bandwidth probe: reads every input byte once with 16-byte loads and does nothing
// else of note. No histogram can beat it, so the report gives every kernel as % of it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace histo {

// Reads n bytes at d_in (any alignment). d_sink must point to one device word; it is written
// only if the data's checksum hits an impossible value, which keeps the loads alive.
void bandwidth_probe(const uint8_t* d_in, size_t n, uint32_t* d_sink, cudaStream_t stream);

}  // namespace histo
