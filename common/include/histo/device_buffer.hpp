// RAII device memory. Allocation failure (out of memory) throws a CudaError that says how much
// was asked for and how much the device had free.
#pragma once

#include "histo/cuda_check.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace histo {

// Allocates `bytes` of device memory or throws CudaError with the sizes involved.
void* device_alloc(size_t bytes);

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count)
      : data_(static_cast<T*>(device_alloc(count * sizeof(T)))), count_(count) {}
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return data_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* h_src, size_t count, size_t first = 0) {
    CUDA_CHECK(cudaMemcpy(data_ + first, h_src, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h_copy(count_);
    CUDA_CHECK(cudaMemcpy(h_copy.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return h_copy;
  }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  T* data_ = nullptr;
  size_t count_ = 0;
};

}  // namespace histo
