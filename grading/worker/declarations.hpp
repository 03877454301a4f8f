// Every declaration a split grader's trusted side may call across (grading/worker/seams.py's
// generated code includes this, then the lab's header): the engine's, the course's.
#pragma once

#include <cuda_runtime.h>

#include "histo/bits.hpp"
#include "histo/cuda_check.hpp"
#include "histo/datasets.hpp"
#include "histo/device_buffer.hpp"
#include "histo/diagnosis.hpp"
#include "histo/gpu.hpp"
#include "histo/grading.hpp"
#include "histo/launch.hpp"
#include "histo/output_watch.hpp"
#include "histo/perf.hpp"
#include "histo/probe.hpp"
#include "histo/reference.hpp"
#include "histo/timing.hpp"

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"
#include "histo_sim_host_writes.h"
#endif

#include "fields.hpp"
#include "host_arrays.hpp"

// A lab's __host__ __device__ functions are device code to Clang's check of what device code
// calls (sim/include/cuda_runtime.h): their stubs call the channel, which is not.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wtcb-enforcement"
#endif
