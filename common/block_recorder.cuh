// The recorders of the single-block kernels (chapters 03 to 05), and the launch that records one.
//
// Each kernel takes a recorder as its last parameter and calls it beside every operation it
// performs: rec.step(stride) as a step begins, rec.add(...) after each addition, and so on. The
// timed kernel is instantiated with NoRecorder, whose calls are empty and compile to nothing (the
// registers and instructions of the timed kernel are those of the kernel without the calls). The
// traced launch instantiates the same kernel template with BlockRecorder, which writes an event
// (common/block_events.hpp) to device memory for each call: the trace that --trace draws, and
// that the GPU tests hold the chapters' models against, is what the kernel did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "block_events.hpp"
#include "cuda_check.cuh"
#include "gpu.cuh"
#include "single_block.hpp"

namespace reduction {

// The timed kernels' recorder: records nothing, costs nothing.
struct NoRecorder {
  __device__ void step(unsigned /*stride*/) {}
  template <typename T>
  __device__ void add(const T*, unsigned /*owner*/, const T*, unsigned /*partner*/) {}
  template <typename T>
  __device__ void copy(const T*, unsigned /*owner*/, const T*) {}
  template <typename T>
  __device__ void result(const T*, unsigned /*index*/) {}
};

// The traced launch's recorder: appends an event per call to `events` in device memory. Every
// thread gets its own copy of the recorder (it is a kernel argument), so each thread counts the
// steps it has begun by itself.
struct BlockRecorder {
  single_block::BlockEvent* events = nullptr;
  unsigned* count = nullptr;  // events appended so far, possibly more than `capacity`: the host checks
  unsigned capacity = 0;
  std::uint32_t steps_begun = 0;

  // The block begins the step of `stride`. Every thread calls it; thread 0 records it.
  __device__ void step(unsigned stride) {
    ++steps_begun;
    if (threadIdx.x != 0) return;
    single_block::BlockEvent e;
    e.kind = single_block::BlockEvent::kStep;
    e.step = steps_begun;
    e.stride = stride;
    push(e);
  }
  // This thread has just written target[owner] = source[owner] + source[partner].
  template <typename T>
  __device__ void add(const T* target, unsigned owner, const T* source, unsigned partner) {
    push(event(single_block::BlockEvent::kAdd, target, owner, source, partner, target[owner]));
  }
  // This thread has just written target[owner] = source[owner].
  template <typename T>
  __device__ void copy(const T* target, unsigned owner, const T* source) {
    push(event(single_block::BlockEvent::kCopy, target, owner, source, 0, target[owner]));
  }
  // This thread has just stored source[index] to *result.
  template <typename T>
  __device__ void result(const T* source, unsigned index) {
    single_block::BlockEvent e = event(single_block::BlockEvent::kResult, source, index, source, 0, source[index]);
    e.target_shared = 0;  // *result is in global memory
    push(e);
  }

 private:
  template <typename T>
  __device__ single_block::BlockEvent event(std::uint32_t kind, const T* target, unsigned owner, const T* source,
                                            unsigned partner, T value) const {
    single_block::BlockEvent e;
    e.kind = kind;
    e.step = steps_begun;
    e.thread = threadIdx.x;
    e.owner = owner;
    e.partner = partner;
    e.target_shared = __isShared(target) ? 1 : 0;
    e.source_shared = __isShared(source) ? 1 : 0;
    std::memcpy(&e.value_bits, &value, sizeof(T));
    return e;
  }
  __device__ void push(const single_block::BlockEvent& e) {
    const unsigned slot = atomicAdd(count, 1u);
    if (slot < capacity) events[slot] = e;
  }
};

namespace single_block {

// What the recorded launch did: its events in the kernel's order, the array it left in global
// memory, and what it stored to *result.
template <typename T>
struct Recording {
  std::vector<BlockEvent> events;
  std::vector<T> data_after;
  T result{};
};

// Enough for any n these kernels take: a step marker per step, at most one addition or copy per
// thread and step, and the result.
constexpr unsigned kMaxEvents = 4 * kMaxElements;

// A kernel whose input is `const T*` leaves it unchanged; one that takes `T*` reduces in place.
template <typename T, typename Data>
bool writes_its_input(void (*)(Data*, std::size_t, T*, BlockRecorder)) {
  return !std::is_const_v<Data>;
}

// Runs `kernel`, a chapter's kernel instantiated with BlockRecorder, on `input` in the block its
// launcher uses for that n, and returns what it recorded.
template <typename T, typename Data>
Recording<T> record(void (*kernel)(Data*, std::size_t, T*, BlockRecorder), const std::vector<T>& input) {
  const std::size_t n = input.size();
  require_valid_size(n);
  DeviceBuffer<T> data(input), result(1);
  DeviceBuffer<BlockEvent> events(kMaxEvents);
  DeviceBuffer<unsigned> count(std::vector<unsigned>{0});
  result.poison();
  kernel<<<1, threads_for(n)>>>(data.data(), n, result.data(), BlockRecorder{events.data(), count.data(), kMaxEvents});
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  const unsigned recorded = count.download_one();
  if (recorded > kMaxEvents)
    throw std::runtime_error("the recorded kernel wrote " + std::to_string(recorded) + " events, more than the " +
                             std::to_string(kMaxEvents) + " there is room for");
  Recording<T> recording;
  recording.events.resize(recorded);
  if (recorded)
    CUDA_CHECK(
        cudaMemcpy(recording.events.data(), events.data(), recorded * sizeof(BlockEvent), cudaMemcpyDeviceToHost));
  sort_events(recording.events);
  recording.data_after = data.download();
  recording.result = result.download_one();
  return recording;
}

}  // namespace single_block
}  // namespace reduction
