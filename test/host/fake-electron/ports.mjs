// Electron's MessagePortMain, stood in by a Node MessagePort (node:worker_threads): real structured clone,
// real transfer to another thread (the fake utility process), messages queued until start(), and
// 'close' when either end goes away. Shared by the fake `electron` module and the utility-process bootstrap.
import { MessageChannel } from 'node:worker_threads';

export class Emitter {
  constructor() {
    this.listeners = new Map();
  }
  on(name, fn) {
    (this.listeners.get(name) ?? this.listeners.set(name, []).get(name)).push(fn);
    return this;
  }
  once(name, fn) {
    const wrapped = (...args) => {
      this.off(name, wrapped);
      fn(...args);
    };
    return this.on(name, wrapped);
  }
  off(name, fn) {
    const list = this.listeners.get(name);
    if (list) list.splice(list.indexOf(fn) >>> 0, 1);
    return this;
  }
  emit(name, ...args) {
    for (const fn of [...(this.listeners.get(name) ?? [])]) fn(...args);
  }
}

/** A MessagePortMain around a Node MessagePort. */
export class PortMain extends Emitter {
  constructor(port) {
    super();
    this.port = port;
    /** Every message this end received, in order (tests read it). */
    this.received = [];
    this.started = false;
    this.closed = false;
    port.on('close', () => {
      this.closed = true;
      this.emit('close');
    });
  }
  postMessage(data, transfer = []) {
    if (this.closed) return;
    const ports = transfer.map((p) => p.port);
    this.port.postMessage({ data, ports }, ports);
  }
  start() {
    if (this.started) return;
    this.started = true;
    this.port.on('message', ({ data, ports }) => {
      this.received.push(data);
      this.emit('message', { data, ports: ports.map((p) => new PortMain(p)) });
    });
  }
  close() {
    this.closed = true;
    this.port.close();
  }
}

export class MessageChannelMain {
  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.port1 = new PortMain(port1);
    this.port2 = new PortMain(port2);
  }
}
