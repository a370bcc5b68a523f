// The browser microphone's AudioWorklet processor (runs on the audio rendering thread): gathers the
// capture's 128-frame render quanta (the node down-mixes to one channel) into blocks of `blockFrames`,
// each written straight into a new buffer laid out as an audio block (engine/protocol/audio-frames.ts)
// with its header left for the page to fill, and transfers it to the page. Loaded by browser-mic.ts with
// audioWorklet.addModule from the app's own origin (the page's CSP allows scripts from 'self' only).
import {
  AUDIO_FRAME_HEADER_BYTES,
  AUDIO_WORKLET_PROCESSOR,
} from '../../../electron/engine/protocol/audio-frames.js';

// AudioWorkletGlobalScope's names (TypeScript's DOM library does not declare them).
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
  abstract process(inputs: Float32Array[][], outputs: Float32Array[][]): boolean;
}
declare function registerProcessor(
  name: string,
  processor: new (options: { processorOptions: { blockFrames: number } }) => AudioWorkletProcessor,
): void;

class BlockProcessor extends AudioWorkletProcessor {
  readonly #frames: number;
  #buffer!: ArrayBuffer;
  #samples!: Float32Array;
  #filled = 0;
  #stopped = false;

  constructor(options: { processorOptions: { blockFrames: number } }) {
    super(options);
    this.#frames = options.processorOptions.blockFrames;
    this.#fresh();
    // 'stop' ends the processor: the node can then be collected.
    this.port.onmessage = (e: MessageEvent) => {
      if (e.data === 'stop') this.#stopped = true;
    };
  }

  #fresh(): void {
    this.#buffer = new ArrayBuffer(AUDIO_FRAME_HEADER_BYTES + this.#frames * 4);
    this.#samples = new Float32Array(this.#buffer, AUDIO_FRAME_HEADER_BYTES, this.#frames);
    this.#filled = 0;
  }

  process(inputs: Float32Array[][]): boolean {
    if (this.#stopped) return false;
    const channel = inputs[0]?.[0];
    if (!channel) return true; // no input connected (yet)
    let i = 0;
    while (i < channel.length) {
      const n = Math.min(channel.length - i, this.#frames - this.#filled);
      this.#samples.set(channel.subarray(i, i + n), this.#filled);
      this.#filled += n;
      i += n;
      if (this.#filled === this.#frames) {
        this.port.postMessage(this.#buffer, [this.#buffer]);
        this.#fresh();
      }
    }
    return true;
  }
}

registerProcessor(AUDIO_WORKLET_PROCESSOR, BlockProcessor);
