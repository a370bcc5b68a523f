// Whole operations on host or device data, as the addon and the benchmark call them: transforms of a
// batch held in host memory run as a pipeline (pieces of the batch copied up, transformed and copied
// back, so the copies in both directions and the kernels overlap), and the copy pipeline itself
// (HostPipe), which the stream processors share (streamPieces in io.cu).
#pragma once
#include <functional>

#include "fft.h"

namespace ph {

enum class Op { Fft, Ifft, Rfft, Irfft };

/** Values (floats) in and out per transform of size n. */
long long opInValues(Op op, long long n);
long long opOutValues(Op op, long long n);

/** Runs `batch` transforms of host data (pinnedHost: the host arrays are page-locked, no staging). */
void runHost(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, bool pinnedHost = false);
/** Device in, device out (out must hold batch·opOutValues). Uses gpu.stream(). */
void runDevice(Gpu& gpu, Op op, long long n, long long batch, const float* in, float* out, cudaStream_t s,
               int scratchSlot = 0);

/** The host pipeline itself: `units` work units of inUnit bytes in and outUnit bytes out, in pieces of
 *  about hostPiece() bytes (whole units) through a HostPipe of three slots: uploads in order on stream 1,
 *  compute(slot, dIn, dOut, count, stream) on gpu.stream(), copies back on stream 2; the device buffers of
 *  a slot (and the scratch the callback picks by slot) are reused every third piece. Page-locked host
 *  memory on both sides (pinnedHost) is queued at once with one wait at the end. */
void pipelineHost(Gpu& gpu, size_t inUnit, size_t outUnit, long long units, const void* in, void* out, bool pinnedHost,
                  const std::function<void(int, const void*, void*, long long, cudaStream_t)>& compute);

/** Bytes of a host-pipeline piece (pipelineHost, and the stream processors' pieces; also the pieces of
 *  copyToDevice/copyToHost's staging): small pieces fill and drain the pipeline faster. */
constexpr size_t kHostPiece = 8u << 20;
/** The pipelines' piece, kHostPiece unless tuned (setTuning's pieceBytes: tests stream many pieces through
 *  the CPU emulation with small ones). */
size_t& hostPiece();

/** The copy pipeline under pipelineHost and streamPieces. Piece c uses slot k = c mod slots (slots ≤ 3):
 *  its copy up on stream 1 (every upload in order), its compute on the compute stream after the upload
 *  (event up[k]), its copy back on stream 2 after the compute (event done[k]); events 4…12 of the Gpu.
 *  Page-locked host memory is copied by DMA directly and nothing waits on the host; pageable memory goes
 *  through a pinned staging buffer per slot and direction (pinned(10 + 2k) up, pinned(11 + 2k) down), and
 *  the host waits only before reusing one: for the upload that last read it, or for the copy back that
 *  last filled it (then moves that piece to the caller's memory, with several threads, while the
 *  later pieces are in flight). With `ring`, the device buffers belong to a slot too: the upload into
 *  slot k waits for the compute that last read it (done[k]) and the compute into it waits for the copy
 *  back that last read it (down[k]), events between streams, no host waits. Call per piece, in order:
 *  up, compute, down (down optional); then finish(). */
class HostPipe {
 public:
  static constexpr int kMaxSlots = 3;
  HostPipe(Gpu& gpu, cudaStream_t compute, int slots, bool ring, bool upPinned, size_t upCap, bool downPinned,
           size_t downCap);
  ~HostPipe();  // after an exception: waits for the streams, whose copies may still read or write host memory
  HostPipe(const HostPipe&) = delete;
  HostPipe& operator=(const HostPipe&) = delete;
  /** Queues bytes (0 is fine) host → device for slot k; pageable blocks larger than upCap go through
   *  copyToDevice. */
  void up(int k, void* dev, const void* host, size_t bytes);
  /** Runs f (queuing work on the compute stream) after slot k's upload, and after the copy back that last
   *  read slot k's device output (ring). */
  void compute(int k, const std::function<void()>& f);
  /** Queues device → host for slot k after its compute. */
  void down(int k, void* host, const void* dev, size_t bytes);
  /** Waits for the copies back; the output is in the caller's memory at return. */
  void finish();

 private:
  void drain(int k);
  Gpu& gpu_;
  cudaStream_t cs_, up_, down_;
  int slots_, lastDown_ = 0;
  bool ring_, upPinned_, downPinned_, finished_ = false;
  size_t upCap_, downCap_;
  bool upStaged_[kMaxSlots] = {}, computed_[kMaxSlots] = {}, downQueued_[kMaxSlots] = {};
  void* downHost_[kMaxSlots] = {};  // staged copy back of slot k still to move: where to, how much
  size_t downBytes_[kMaxSlots] = {};
};

/** Copies with several host threads (large copies are limited by one core's memory bandwidth). */
void parallelCopy(void* dst, const void* src, size_t bytes);

}  // namespace ph
