/* cuda_runtime.h -- a host emulation of the little of CUDA the generated code uses, for the tests
 * (test_cuda_target.py, test_gpu_engine.py, tools/gpu-check.sh's GPU_CHECK_EMU): the .cu files compiled as
 * C++ by the host compiler, each launch `k<<<g, b, 0, s>>>(args)` rewritten as EMU_LAUNCH_S_(s, g, b, k,
 * args), which runs every thread of every block in turn.  It checks the kernels' indexing, the boundary
 * phases, the schedule and the engine on a machine without a GPU; nvcc's arithmetic (--fmad=false) and the
 * speed are the device check's (tools/gpu-check.sh).
 *
 * Streams are queues, as on a device: a launch, an asynchronous copy or free is queued on its stream (its
 * arguments taken by value, as a launch takes them) and runs only when something waits for it --
 * cudaStreamSynchronize of that stream, cudaDeviceSynchronize, a synchronous cudaMemcpy or cudaFree (which
 * wait for everything) --, and while a stream is drained the others' queues run a step now and then in a
 * pseudo-random order (streams are concurrent; each stays in order).  So a host that reads what a copy has
 * not yet written, or one stream that needs another's result without waiting for it, gets stale data.
 * Only streams cudaStreamCreate* made (and not destroyed) are accepted, besides the default stream 0.
 * cudaMallocAsync memory starts as 0xff bytes (NaN in f32 and f64), and fails (out of memory) past
 * $EMU_DEVICE_MEM bytes in all (default 64 GiB), which cudaMemGetInfo gives as free.  Launches are counted,
 * each kernel's by its name: with $EMU_LAUNCH_LOG set, the program writes there at exit a line "NAME COUNT"
 * a kernel (test_gpu_engine.py counts a step's launches). */
#ifndef CUDA_EMU_RUNTIME_H
#define CUDA_EMU_RUNTIME_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <deque>
#include <functional>
#include <map>
#include <string>

#define __global__
#define __device__
#define __forceinline__ inline

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
static dim3 blockIdx, threadIdx, gridDim, blockDim;

/* Every thread of every block, now. */
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
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum { cudaStreamNonBlocking = 1 };

#define EMU_STREAMS_ 64
/* The emulated device, one for the program: every .cu file includes this header, and an inline function of
 * external linkage has one instance of its static (a `static` variable here would be one per file). */
struct emu_device_ {
    char live[EMU_STREAMS_];                           /* stream k (k + 1 as a cudaStream_t) exists */
    std::deque<std::function<void()>> q[EMU_STREAMS_ + 1]; /* [0]: the default stream */
    unsigned rng = 12345u;
    int last = 0; /* the error cudaGetLastError gives next */
    std::map<void *, size_t> held; /* cudaMallocAsync's blocks: their sum is at most $EMU_DEVICE_MEM */
    size_t used = 0;
    std::map<std::string, unsigned long> launches; /* kernel name -> its launches */
    ~emu_device_() {
        const char *path = getenv("EMU_LAUNCH_LOG");
        FILE *f = path && *path ? fopen(path, "w") : NULL;
        for (auto it = launches.begin(); f && it != launches.end(); ++it)
            fprintf(f, "%s %lu\n", it->first.c_str(), it->second);
        if (f)
            fclose(f);
    }
};
inline emu_device_ &emu_dev_() {
    static emu_device_ d;
    return d;
}
#define emu_stream_live_ (emu_dev_().live)
#define emu_q_ (emu_dev_().q)
#define emu_rng_ (emu_dev_().rng)
#define emu_last_ (emu_dev_().last)

static inline int emu_stream_ok_(cudaStream_t s) {
    const size_t k = (size_t)s;
    return k == 0 || (k <= EMU_STREAMS_ && emu_stream_live_[k - 1]);
}
static inline void emu_run_one_(size_t k) {
    std::function<void()> f = emu_q_[k].front();
    emu_q_[k].pop_front();
    f();
}
/* Stream k's queue, to its end; other streams' work runs between, now and then. */
static inline void emu_drain_(size_t k) {
    while (!emu_q_[k].empty()) {
        emu_rng_ = emu_rng_ * 1103515245u + 12345u;
        const size_t o = (emu_rng_ >> 16) % (EMU_STREAMS_ + 1);
        emu_run_one_(o != k && !emu_q_[o].empty() ? o : k);
    }
}
static inline void emu_drain_all_(void) {
    for (size_t k = 0; k <= EMU_STREAMS_; k++)
        emu_drain_(k);
}
static inline cudaError_t emu_enqueue_(cudaStream_t s, std::function<void()> f) {
    if (!emu_stream_ok_(s))
        return cudaErrorInvalidValue;
    emu_q_[(size_t)s].push_back(f);
    return cudaSuccess;
}

/* A launch on stream s, queued: its arguments converted to the kernel's parameters now (as a launch copies
 * them), its threads run when the stream is drained; a launch on a stream that does not exist is the next
 * cudaGetLastError's error. */
template <typename T> struct emu_id_ {
    typedef T type;
};
template <typename... A>
static inline void emu_launch_s_(const char *name, cudaStream_t s, dim3 g, dim3 b, void (*k)(A...),
                                 typename emu_id_<A>::type... args) {
    emu_dev_().launches[name]++;
    if (emu_enqueue_(s, [=]() { EMU_LAUNCH_(g, b, k, args...); }))
        emu_last_ = 1;
}
#define EMU_LAUNCH_S_(stream, grid, block, kernel, ...)                                                             \
    emu_launch_s_(#kernel, (cudaStream_t)(stream), (grid), (block), kernel, __VA_ARGS__)

/* EMU_DEVICE_MEM: the device memory cudaMemGetInfo gives as free (default 64 GiB). */
static inline size_t emu_device_mem_(void) {
    const char *e = getenv("EMU_DEVICE_MEM");
    return e ? (size_t)strtoull(e, NULL, 10) : (size_t)64 << 30;
}

static inline cudaError_t cudaGetLastError(void) {
    const cudaError_t e = emu_last_;
    emu_last_ = 0;
    return e;
}
static inline const char *cudaGetErrorString(cudaError_t e) {
    return e == cudaErrorMemoryAllocation ? "out of memory" : e ? "error" : "no error";
}
static inline cudaError_t cudaMalloc(void **p, size_t n) { return (*p = malloc(n ? n : 1)) ? cudaSuccess : 2; }
static inline cudaError_t cudaMemset(void *p, int c, size_t n) {
    emu_drain_all_();
    return memset(p, c, n), cudaSuccess;
}
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) {
    emu_drain_all_();
    return memcpy(d, s, n), cudaSuccess;
}
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t st = 0) {
    return emu_enqueue_(st, [=]() { memcpy(d, s, n); });
}
static inline cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int,
                                            cudaStream_t st = 0) {
    if (w > dp || w > sp)
        return emu_last_ = cudaErrorInvalidValue;
    return emu_enqueue_(st, [=]() {
        for (size_t i = 0; i < h; i++)
            memcpy((char *)d + i * dp, (const char *)s + i * sp, w);
    });
}
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaFreeHost(void *p) {
    emu_drain_all_();
    return free(p), cudaSuccess;
}
static inline cudaError_t cudaFree(void *p) {
    emu_drain_all_();
    return free(p), cudaSuccess;
}
static inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t st) {
    if (!emu_stream_ok_(st))
        return cudaErrorInvalidValue;
    if (emu_dev_().used + n > emu_device_mem_() || !(*p = malloc(n ? n : 1)))
        return emu_last_ = cudaErrorMemoryAllocation;
    memset(*p, 0xff, n);
    emu_dev_().held[*p] = n;
    emu_dev_().used += n;
    return cudaSuccess;
}
static inline cudaError_t cudaFreeAsync(void *p, cudaStream_t st) {
    return emu_enqueue_(st, [=]() {
        emu_dev_().used -= emu_dev_().held[p];
        emu_dev_().held.erase(p);
        free(p);
    });
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
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    if (!emu_stream_ok_(s))
        return cudaErrorInvalidValue;
    emu_drain_((size_t)s);
    return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s || !emu_stream_ok_(s))
        return cudaErrorInvalidValue;
    emu_drain_((size_t)s);
    emu_stream_live_[(size_t)s - 1] = 0;
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceSynchronize(void) {
    emu_drain_all_();
    return cudaSuccess;
}
/* $EMU_DEVICE_COUNT devices (default 1): cudaSetDevice checks the number and keeps it (one device's memory and
 * queues serve them all: a process uses one). */
static inline int emu_device_count_(void) {
    const char *e = getenv("EMU_DEVICE_COUNT");
    return e ? atoi(e) : 1;
}
static inline int &emu_current_device_(void) {
    static int d = 0;
    return d;
}
static inline cudaError_t cudaGetDeviceCount(int *n) { return *n = emu_device_count_(), cudaSuccess; }
static inline cudaError_t cudaSetDevice(int d) {
    if (d < 0 || d >= emu_device_count_())
        return emu_last_ = cudaErrorInvalidValue;
    return emu_current_device_() = d, cudaSuccess;
}
static inline cudaError_t cudaGetDevice(int *d) { return *d = emu_current_device_(), cudaSuccess; }
static inline cudaError_t cudaMemGetInfo(size_t *free_, size_t *total) {
    *free_ = *total = emu_device_mem_();
    return cudaSuccess;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) {
    emu_drain_all_();
    return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { return *ms = 1, cudaSuccess; }
#endif
