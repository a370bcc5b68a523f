// What the main process tells the engine host over its parent port (the only messages on that port).
// Protocol traffic never goes this way: each window has a MessagePort of its own straight to the host,
// handed over with `connect`.
//
//   connect     { type: 'connect', window }     ports: [the engine's end of that window's channel]
//   disconnect  { type: 'disconnect', window }  the window closed, reloaded or crashed
//   grant       { type: 'grant', window, path, beside? } the user chose `path` for that window (a dialog,
//                                               a drop): its connection may use it from now on, and with
//                                               `beside` (a file opened) make new files in its folder
//   shutdown    { type: 'shutdown' }            the app is quitting: close everything, then exit 0
//   gpu-port    { type: 'gpu-port', request }   ports: [the engine's end of a channel to the WebGPU window]
//               { type: 'gpu-port', request, reason }   no WebGPU window (why)
//
// and the one thing the host asks of the main process (EngineRequest):
//   gpu-port    { type: 'gpu-port', request }   a new channel to the hidden window that runs WebGPU on
//                                               Chromium's navigator.gpu (the bridge, one backend a port)

export type HostMessage =
  | { type: 'connect'; window: number }
  | { type: 'disconnect'; window: number }
  | { type: 'grant'; window: number; path: string; beside?: boolean }
  | { type: 'shutdown' }
  | { type: 'gpu-port'; request: number; reason?: string };

export type EngineRequest = { type: 'gpu-port'; request: number };

/** True for a well-formed EngineRequest (anything else from the host is ignored). */
export function isEngineRequest(value: unknown): value is EngineRequest {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { type?: unknown; request?: unknown };
  return m.type === 'gpu-port' && typeof m.request === 'number' && Number.isSafeInteger(m.request);
}

/** True for a well-formed HostMessage (anything else on the parent port is ignored). */
export function isHostMessage(value: unknown): value is HostMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as {
    type?: unknown;
    window?: unknown;
    request?: unknown;
    reason?: unknown;
    path?: unknown;
    beside?: unknown;
  };
  if (m.type === 'shutdown') return true;
  if (m.type === 'grant')
    return (
      typeof m.window === 'number' &&
      Number.isSafeInteger(m.window) &&
      typeof m.path === 'string' &&
      m.path.length > 0 &&
      m.path.length <= 4096 &&
      !m.path.includes('\0') &&
      (m.beside === undefined || typeof m.beside === 'boolean')
    );
  if (m.type === 'gpu-port')
    return (
      typeof m.request === 'number' &&
      Number.isSafeInteger(m.request) &&
      (m.reason === undefined || typeof m.reason === 'string')
    );
  return (
    (m.type === 'connect' || m.type === 'disconnect') &&
    typeof m.window === 'number' &&
    Number.isSafeInteger(m.window)
  );
}
