export * from './messages.js';
export * from './rows-codec.js';
export type { PhasorBridge } from './bridge.js';
export * from './shape.js';
