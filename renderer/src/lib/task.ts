// A long request as the views show it: running, its progress (fraction, throughput, ETA), cancel, and how
// it ended. One task runs at a time; starting another cancels the one before.

import { markRaw, reactive } from 'vue';
import type { ProgressEvent } from '../../../electron/engine/protocol/messages.js';
import type { RequestOptions } from '../transport/connection.js';
import { isCancelled } from '../transport/connection.js';
import { ProgressMeter, type ProgressView } from './progress.js';

export type TaskOutcome = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';

export interface Task {
  readonly running: boolean;
  readonly outcome: TaskOutcome;
  readonly progress: ProgressView | null;
  readonly error: string;
  /**
   * Runs `fn` with the options (progress, abort signal) to pass to the request. Resolves with its result,
   * or null when it was cancelled or failed (the error is kept in `error`).
   */
  run<T>(
    fn: (options: RequestOptions) => Promise<T>,
    onProgress?: (e: ProgressEvent) => void,
  ): Promise<T | null>;
  /** Cancels the running request (the engine stops it and answers 'cancelled'). */
  cancel(): void;
  reset(): void;
}

export function createTask(now: () => number = () => performance.now()): Task {
  let controller: AbortController | null = null;
  let generation = 0;
  const meter = new ProgressMeter();
  const state = reactive({
    running: false,
    outcome: 'idle' as TaskOutcome,
    progress: null as ProgressView | null,
    error: '',
    async run<T>(
      fn: (options: RequestOptions) => Promise<T>,
      onProgress?: (e: ProgressEvent) => void,
    ): Promise<T | null> {
      controller?.abort();
      const mine = ++generation;
      const c = new AbortController();
      controller = c;
      meter.reset();
      state.running = true;
      state.outcome = 'running';
      state.error = '';
      state.progress = null;
      try {
        const result = await fn({
          signal: c.signal,
          onProgress: (e) => {
            if (mine !== generation) return;
            state.progress = markRaw(meter.push(e, now()));
            onProgress?.(e);
          },
        });
        if (mine === generation) state.outcome = 'done';
        return result;
      } catch (e) {
        if (mine === generation) {
          if (isCancelled(e) || c.signal.aborted) state.outcome = 'cancelled';
          else {
            state.outcome = 'failed';
            state.error = e instanceof Error ? e.message : String(e);
          }
        }
        return null;
      } finally {
        if (mine === generation) {
          state.running = false;
          controller = null;
        }
      }
    },
    cancel(): void {
      controller?.abort();
    },
    reset(): void {
      controller?.abort();
      generation++;
      controller = null;
      state.running = false;
      state.outcome = 'idle';
      state.progress = null;
      state.error = '';
    },
  });
  return state as Task;
}
