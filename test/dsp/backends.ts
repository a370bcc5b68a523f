// The backends the DSP tests run on: the float64 reference, and the engine's CPU backend.
import type { Backend } from '../../electron/engine/backends/backend.js';
import { createCpuBackend } from '../../electron/engine/backends/cpu/index.js';
import { createReferenceBackend } from './reference-backend.js';

export interface NamedBackend {
  name: string;
  create: () => Promise<Backend>;
}

export const BACKENDS: NamedBackend[] = [
  { name: 'reference', create: async () => createReferenceBackend() },
  { name: 'cpu', create: () => createCpuBackend() },
];
