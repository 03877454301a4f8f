// The graders' view of the CUDA runtime on a GPU. A grader executable (a split grader's
// worker) is linked with the linker's --wrap for each function below (histo_runtime_watch,
// common/CMakeLists.txt): every call to it in the executable, the lab's code included, comes
// here first, is noted against the watched outputs (copy_watch.cpp), and goes on to the
// runtime's own (__real_...). The CUDA runtime is linked statically, so no call to these
// functions goes around the wrappers.
// What the watch learns: copies of device memory to host memory (host counting: the input
// brought over to count it there), and copies or nonzero memsets into a watched output (bins
// counted elsewhere, copied in). The simulator's runtime sees the same itself.
#include <cuda_runtime.h>

#include "histo/output_watch.hpp"

#include <cstddef>

namespace {

using histo::note_runtime_copy;
using histo::note_runtime_memset;

bool is_device(const void* p) {
  const cudaError_t pending = cudaPeekAtLastError();
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    // Not a pointer the runtime knows: not device memory. The lab's own error, if one is
    // pending, is left for it to find.
    if (pending == cudaSuccess) (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

// Whether a copy of `kind` from src to dst brings device memory to the host.
bool to_host(const void* dst, const void* src, cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDeviceToHost) return true;
  if (kind != cudaMemcpyDefault) return false;
  return is_device(src) && !is_device(dst);
}

// The bytes a pitched copy or memset spans at dst.
size_t span(size_t pitch, size_t width, size_t height) {
  return height ? pitch * (height - 1) + width : 0;
}

}  // namespace

extern "C" {

cudaError_t __real_cudaMemcpy(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpy2DAsync(void*, size_t, const void*, size_t, size_t, size_t,
                                     cudaMemcpyKind, cudaStream_t);
cudaError_t __real_cudaMemcpyFromSymbol(void*, const void*, size_t, size_t, cudaMemcpyKind);
cudaError_t __real_cudaMemcpyFromSymbolAsync(void*, const void*, size_t, size_t, cudaMemcpyKind,
                                             cudaStream_t);
cudaError_t __real_cudaMemset(void*, int, size_t);
cudaError_t __real_cudaMemsetAsync(void*, int, size_t, cudaStream_t);
cudaError_t __real_cudaMemset2D(void*, size_t, int, size_t, size_t);
cudaError_t __real_cudaMemset2DAsync(void*, size_t, int, size_t, size_t, cudaStream_t);

cudaError_t __wrap_cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  note_runtime_copy(dst, src, bytes, to_host(dst, src, kind));
  return __real_cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t __wrap_cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  note_runtime_copy(dst, src, bytes, to_host(dst, src, kind));
  return __real_cudaMemcpyAsync(dst, src, bytes, kind, stream);
}

cudaError_t __wrap_cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
  note_runtime_copy(dst, src, span(dpitch, width, height), to_host(dst, src, kind));
  return __real_cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t __wrap_cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream) {
  note_runtime_copy(dst, src, span(dpitch, width, height), to_host(dst, src, kind));
  return __real_cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
}

// From a __device__ variable: to the host unless the copy is device to device.
cudaError_t __wrap_cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset,
                                        cudaMemcpyKind kind) {
  note_runtime_copy(dst, nullptr, bytes, kind == cudaMemcpyDeviceToHost ||
                                                    (kind == cudaMemcpyDefault && !is_device(dst)));
  return __real_cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}

cudaError_t __wrap_cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes,
                                             size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  note_runtime_copy(dst, nullptr, bytes, kind == cudaMemcpyDeviceToHost ||
                                                    (kind == cudaMemcpyDefault && !is_device(dst)));
  return __real_cudaMemcpyFromSymbolAsync(dst, symbol, bytes, offset, kind, stream);
}

cudaError_t __wrap_cudaMemset(void* dst, int value, size_t bytes) {
  note_runtime_memset(dst, bytes, value);
  return __real_cudaMemset(dst, value, bytes);
}

cudaError_t __wrap_cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  note_runtime_memset(dst, bytes, value);
  return __real_cudaMemsetAsync(dst, value, bytes, stream);
}

cudaError_t __wrap_cudaMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  note_runtime_memset(dst, span(pitch, width, height), value);
  return __real_cudaMemset2D(dst, pitch, value, width, height);
}

cudaError_t __wrap_cudaMemset2DAsync(void* dst, size_t pitch, int value, size_t width,
                                     size_t height, cudaStream_t stream) {
  note_runtime_memset(dst, span(pitch, width, height), value);
  return __real_cudaMemset2DAsync(dst, pitch, value, width, height, stream);
}

}  // extern "C"
