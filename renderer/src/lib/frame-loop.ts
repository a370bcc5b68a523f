// One requestAnimationFrame loop for the live display: every part (waterfall, trace, axes) registers a
// callback that draws when it has something new and says whether it drew. The loop counts drawn frames
// (the renderer's fps) and stops when nothing is registered.

import { RateMeter } from './meters.js';

export type FrameCallback = (now: number) => boolean;

export class FrameLoop {
  private readonly callbacks: FrameCallback[] = [];
  private handle = 0;
  private readonly meter = new RateMeter(1000);
  /** Frames in which some callback drew. */
  framesDrawn = 0;

  /**
   * @param onRate called once a second with the drawn-frames rate
   * @param onDrawn called after each frame in which something drew, with the callbacks' time (ms)
   */
  constructor(
    private readonly onRate: (fps: number) => void = () => {},
    private readonly onDrawn: (ms: number) => void = () => {},
    private readonly raf: (cb: FrameRequestCallback) => number = (cb) => requestAnimationFrame(cb),
    private readonly caf: (h: number) => void = (h) => cancelAnimationFrame(h),
  ) {}

  /** Callbacks run in the order added. Returns the remover. */
  add(cb: FrameCallback): () => void {
    this.callbacks.push(cb);
    if (!this.handle) this.handle = this.raf(this.frame);
    return () => {
      const i = this.callbacks.indexOf(cb);
      if (i >= 0) this.callbacks.splice(i, 1);
      if (this.callbacks.length === 0 && this.handle) {
        this.caf(this.handle);
        this.handle = 0;
      }
    };
  }

  private readonly frame = (now: number): void => {
    this.handle = 0;
    const t0 = performance.now();
    let drew = false;
    for (let i = 0; i < this.callbacks.length; i++) {
      if (this.callbacks[i](now)) drew = true;
    }
    const updated = drew ? this.meter.tick(now) : this.meter.update(now);
    if (drew) {
      this.framesDrawn++;
      this.onDrawn(performance.now() - t0);
    }
    if (updated) this.onRate(this.meter.rate);
    if (this.callbacks.length) this.handle = this.raf(this.frame);
  };
}
