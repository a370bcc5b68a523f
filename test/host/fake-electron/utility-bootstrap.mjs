// The fake utility process's first module, in a worker thread: gives the entry script Electron's
// process.parentPort (messages with transferred ports, queued until a 'message' listener is added), then
// imports it. process.exit() in the entry ends this thread only, with that exit code, as it ends a utility
// process.
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { Emitter, PortMain } from './ports.mjs';

class ParentPort extends Emitter {
  constructor() {
    super();
    this.queue = [];
  }
  on(name, fn) {
    super.on(name, fn);
    if (name === 'message') for (const e of this.queue.splice(0)) this.emit('message', e);
    return this;
  }
  postMessage(message) {
    parentPort.postMessage(message);
  }
}

const parent = new ParentPort();
parentPort.on('message', ({ data, ports }) => {
  const e = { data, ports: ports.map((p) => new PortMain(p)) };
  if ((parent.listeners.get('message') ?? []).length > 0) parent.emit('message', e);
  else parent.queue.push(e);
});
process.parentPort = parent;
process.argv = [process.argv[0], workerData.modulePath, ...workerData.args];
await import(pathToFileURL(workerData.modulePath).href);
