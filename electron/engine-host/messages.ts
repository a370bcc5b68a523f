// What the main process tells the engine host over its parent port (the only messages on that port).
// Protocol traffic never goes this way: each window has a MessagePort of its own straight to the host,
// handed over with `connect`.
//
//   connect     { type: 'connect', window }     ports: [the engine's end of that window's channel]
//   disconnect  { type: 'disconnect', window }  the window closed, reloaded or crashed
//   shutdown    { type: 'shutdown' }            the app is quitting: close everything, then exit 0

export type HostMessage =
  { type: 'connect'; window: number } | { type: 'disconnect'; window: number } | { type: 'shutdown' };

/** True for a well-formed HostMessage (anything else on the parent port is ignored). */
export function isHostMessage(value: unknown): value is HostMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { type?: unknown; window?: unknown };
  if (m.type === 'shutdown') return true;
  return (
    (m.type === 'connect' || m.type === 'disconnect') &&
    typeof m.window === 'number' &&
    Number.isSafeInteger(m.window)
  );
}
