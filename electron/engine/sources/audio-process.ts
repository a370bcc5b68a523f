// The audio worker's process: the native audio library (audify's RtAudio, and under it ALSA, PulseAudio or
// JACK client code) writes its complaints straight to file descriptor 2, which a worker thread shares with
// the engine, so a CLI error would arrive after a screen of "ALSA lib …" lines. The worker therefore runs
// in a child process of its own whose stderr is a pipe the engine drains: the errors that matter come back
// as messages (one line each), the library's noise goes nowhere (to the terminal with PHASOR_DEBUG=1).
// Messages use Node's 'advanced' serialization, so the blocks' Float32Arrays arrive as Float32Arrays.
// In the desktop app the worker stays a thread: the packaged executable cannot run as Node (its runAsNode
// fuse is off, electron-builder.yml), and no terminal shows the engine's stderr there.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startWorker, type WorkerScript } from './worker-url.js';

/** What the audio host needs of its worker (the shape of a worker thread's). */
export interface AudioProcess {
  postMessage(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onError(listener: (err: Error) => void): void;
  onExit(listener: (code: number) => void): void;
  ref(): void;
  unref(): void;
  terminate(): Promise<void>;
}

/** Starts `script` in a child Node process (tsx registered first for TypeScript), stderr drained; in
 * Electron, in a worker thread. */
export function startAudioProcess(script: WorkerScript): AudioProcess {
  if (process.versions.electron !== undefined) return workerThread(script);
  const args =
    script.tsLoader === undefined
      ? [fileURLToPath(script.url)]
      : [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(script.tsLoader.href)}); (m.register ?? m.default.register)();` +
            ` await import(${JSON.stringify(script.url.href)});`,
        ];
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  const stderr = child.stderr!;
  if (process.env.PHASOR_DEBUG) stderr.pipe(process.stderr);
  else stderr.resume();
  let exited: Promise<void> | null = null;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    postMessage: (message) => {
      if (child.connected) child.send(message as Parameters<ChildProcess['send']>[0]);
    },
    onMessage: (listener) => void child.on('message', listener),
    onError: (listener) => void child.on('error', listener),
    onExit: (listener) => void child.on('exit', (code, signal) => listener(code ?? (signal ? 1 : 0))),
    ref: () => {
      child.ref();
      child.channel?.ref();
      (stderr as { ref?: () => void }).ref?.();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
      (stderr as { unref?: () => void }).unref?.();
    },
    terminate: () => {
      exited ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        // Held until it has gone, so that a caller awaiting this is not left with an empty event loop.
        child.ref();
        child.kill();
        await exit;
      })();
      return exited;
    },
  };
}

/** The same worker as a thread of this process (its stderr is this process's). */
function workerThread(script: WorkerScript): AudioProcess {
  const w = startWorker(script);
  let exited: Promise<void> | null = null;
  return {
    postMessage: (message) => w.postMessage(message),
    onMessage: (listener) => void w.on('message', listener),
    onError: (listener) => void w.on('error', listener),
    onExit: (listener) => void w.on('exit', listener),
    ref: () => w.ref(),
    unref: () => w.unref(),
    terminate: () => (exited ??= w.terminate().then(() => undefined)),
  };
}
