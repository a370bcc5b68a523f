// The connection to the engine: its state (shown while reconnecting) and what the engine said in hello
// (backends, source kinds, windows, defaults). Every other store sends requests through `request`.

import { defineStore } from 'pinia';
import { computed, markRaw, ref, shallowRef } from 'vue';
import type {
  HelloResult,
  Method,
  MethodParams,
  MethodResults,
} from '../../../electron/engine/protocol/messages.js';
import { PROTOCOL_VERSION } from '../../../electron/engine/protocol/messages.js';
import type { Connection, ConnectionState, RequestOptions } from '../transport/connection.js';
import { RequestError } from '../transport/connection.js';
import { hooks, logRequest } from '../lib/hooks.js';

function withoutData(result: unknown): unknown {
  if (result && typeof result === 'object' && 'data' in result && ArrayBuffer.isView(result.data)) {
    const { data, ...rest } = result as Record<string, unknown> & { data: Float32Array };
    return { ...rest, dataLength: data.length };
  }
  return result;
}

export const useConnectionStore = defineStore('connection', () => {
  const state = ref<ConnectionState>('connecting');
  const detail = ref('');
  const hello = shallowRef<HelloResult | null>(null);
  const error = ref('');
  /** Increments after each successful hello (first connection and every reconnection). */
  const epoch = ref(0);
  let conn: Connection | null = null;
  let stopState: (() => void) | null = null;

  const ready = computed(() => state.value === 'open' && hello.value !== null);
  const sources = computed(() => hello.value?.sources ?? []);
  const windows = computed(() => hello.value?.windows ?? []);
  const backends = computed(() => hello.value?.backends ?? []);
  const backend = computed(() => hello.value?.backend ?? null);

  function connection(): Connection {
    if (!conn) throw new RequestError('disconnected', 'no connection to the engine');
    return conn;
  }

  async function request<M extends Method>(
    method: M,
    params: MethodParams[M],
    options?: RequestOptions,
  ): Promise<MethodResults[M]> {
    const entry = { method, params: params as unknown, ok: null as boolean | null, at: Date.now() };
    logRequest(entry);
    // Progress events are counted per method for tests and benchmarks (window.__phasor.progress).
    const counted: RequestOptions | undefined = options?.onProgress
      ? {
          ...options,
          onProgress: (e) => {
            hooks.progress[method] = (hooks.progress[method] ?? 0) + 1;
            options.onProgress!(e);
          },
        }
      : options;
    try {
      const result = await connection().request(method, params, counted);
      // Float payloads stay out of the log (tests read it through page.evaluate).
      Object.assign(entry, { ok: true, result: withoutData(result) });
      return result;
    } catch (e) {
      Object.assign(entry, { ok: false, error: e instanceof Error ? e.message : String(e) });
      throw e;
    }
  }

  async function sayHello(): Promise<void> {
    try {
      const result = await request('hello', {});
      if (result.version !== PROTOCOL_VERSION) {
        error.value = `the engine speaks protocol version ${result.version}, this window ${PROTOCOL_VERSION}; reload the page`;
      } else error.value = '';
      hello.value = result;
      epoch.value++;
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e);
    }
  }

  /** Uses `c` from now on (main.ts, or a fake in tests) and greets the engine whenever it (re)opens. */
  function attach(c: Connection): Promise<void> {
    stopState?.();
    conn = markRaw(c);
    state.value = c.state;
    stopState = c.onState((s, d) => {
      state.value = s;
      detail.value = d ?? '';
      if (s === 'open') void sayHello();
    });
    return c.state === 'open' ? sayHello() : Promise.resolve();
  }

  return {
    state,
    detail,
    hello,
    error,
    epoch,
    ready,
    sources,
    windows,
    backends,
    backend,
    attach,
    connection,
    request,
  };
});
