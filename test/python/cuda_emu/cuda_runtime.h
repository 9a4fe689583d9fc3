/* cuda_runtime.h -- a host emulation of the little of CUDA the generated kernels use, for
 * test_cuda_target.py: the kernels compiled as C++ by the host compiler and "launched" by running
 * every thread of every block in turn (EMU_LAUNCH_, which the test puts where `<<<...>>>` was).
 * It checks the kernels' indexing, boundary phases and the check program's logic on a machine
 * without a GPU; nvcc's arithmetic (--fmad=false) is the device check's (tools/gpu-check.sh). */
#ifndef CUDA_EMU_RUNTIME_H
#define CUDA_EMU_RUNTIME_H

#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __forceinline__ inline

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
static dim3 blockIdx, threadIdx, gridDim, blockDim;

#define EMU_LAUNCH_(grid, block, kernel, ...)                                                                       \
    do {                                                                                                            \
        gridDim = (grid), blockDim = (block);                                                                       \
        for (blockIdx.z = 0; blockIdx.z < gridDim.z; blockIdx.z++)                                                  \
            for (blockIdx.y = 0; blockIdx.y < gridDim.y; blockIdx.y++)                                              \
                for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++)                                          \
                    for (threadIdx.z = 0; threadIdx.z < blockDim.z; threadIdx.z++)                                  \
                        for (threadIdx.y = 0; threadIdx.y < blockDim.y; threadIdx.y++)                              \
                            for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++)                          \
                                kernel(__VA_ARGS__);                                                                \
    } while (0)

/* Streams run in order, each call where it is made (the schedule's order is what the runtime queues); the
 * stream arguments are checked to be ones cudaStreamCreate* made and not destroyed, so a slot on a stream
 * that does not exist fails the run (cudaErrorInvalidValue). */
typedef int cudaError_t;
typedef void *cudaStream_t;
typedef int cudaEvent_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum { cudaStreamNonBlocking = 1 };
#define EMU_STREAMS_ 64
static char emu_stream_live_[EMU_STREAMS_]; /* stream k (k + 1 as a cudaStream_t) exists */
static inline int emu_stream_ok_(cudaStream_t s) {
    const size_t k = (size_t)s;
    return k == 0 || (k <= EMU_STREAMS_ && emu_stream_live_[k - 1]);
}
/* EMU_DEVICE_MEM: the device memory cudaMemGetInfo gives as free (default 64 GiB). */
static inline size_t emu_device_mem_(void) {
    const char *e = getenv("EMU_DEVICE_MEM");
    return e ? (size_t)strtoull(e, NULL, 10) : (size_t)64 << 30;
}
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "error" : "no error"; }
static inline cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n ? n : 1)) ? cudaSuccess : 2; }
static inline cudaError_t cudaMemset(void *p, int c, size_t n) { return memset(p, c, n), cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) { return memcpy(d, s, n), cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t st = 0) {
    if (!emu_stream_ok_(st))
        return cudaErrorInvalidValue;
    return memcpy(d, s, n), cudaSuccess;
}
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFreeHost(void *p) { return free(p), cudaSuccess; }
static inline cudaError_t cudaFree(void *p) { return free(p), cudaSuccess; }
/* Device memory from the stream-ordered allocator: filled with a pattern (NaN in f32 and f64), so that a
 * schedule reading what it never uploaded or computed shows it. */
static inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t st) {
    if (!emu_stream_ok_(st))
        return cudaErrorInvalidValue;
    if (!(*p = malloc(n ? n : 1)))
        return cudaErrorMemoryAllocation;
    memset(*p, 0xff, n);
    return cudaSuccess;
}
static inline cudaError_t cudaFreeAsync(void *p, cudaStream_t st) {
    return emu_stream_ok_(st) ? (free(p), cudaSuccess) : cudaErrorInvalidValue;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) {
    for (size_t k = 0; k < EMU_STREAMS_; k++)
        if (!emu_stream_live_[k]) {
            emu_stream_live_[k] = 1;
            *s = (cudaStream_t)(k + 1);
            return cudaSuccess;
        }
    return cudaErrorInvalidValue;
}
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithFlags(s, 0); }
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s || !emu_stream_ok_(s))
        return cudaErrorInvalidValue;
    emu_stream_live_[(size_t)s - 1] = 0;
    return cudaSuccess;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    return emu_stream_ok_(s) ? cudaSuccess : cudaErrorInvalidValue;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_, size_t *total) {
    *free_ = *total = emu_device_mem_();
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { return *ms = 1, cudaSuccess; }
#endif
