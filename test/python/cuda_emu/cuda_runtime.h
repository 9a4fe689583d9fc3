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

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef int cudaEvent_t;
enum { cudaSuccess = 0, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "error" : "no error"; }
static inline cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n ? n : 1)) ? cudaSuccess : 2; }
static inline cudaError_t cudaMemset(void *p, int c, size_t n) { return memset(p, c, n), cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) { return memcpy(d, s, n), cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t = 0) {
    return memcpy(d, s, n), cudaSuccess;
}
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFree(void *p) { return free(p), cudaSuccess; }
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) { return *s = 0, cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { return *ms = 1, cudaSuccess; }
#endif
