import type { PhasorBridge } from '../../electron/engine/protocol/bridge.js';
import type { PhasorHooks } from './lib/hooks.js';

declare global {
  interface Window {
    /** The desktop app's bridge (preload); absent in web mode. */
    phasor?: PhasorBridge;
    /** Measurement hooks for tests and benchmarks. */
    __phasor?: PhasorHooks;
  }
}

export {};
