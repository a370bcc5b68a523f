// What a browser bundle of the WebGPU backend gets for the Node modules and Dawn that its Node-only paths
// import (finding shaders/ on disk, probing for Vulkan, loading the webgpu package). In the browser those
// paths never run (browser.ts opens the device, shader-text.ts gives the kernels); if one did, it says so.

function unavailable(): never {
  throw new Error('a Node-only path of the WebGPU backend ran in the browser');
}

export const existsSync = unavailable;
export const readdirSync = unavailable;
export const readFileSync = unavailable;
export const fileURLToPath = unavailable;
export const create = unavailable;
export const globals = {};
const path = { join: unavailable, dirname: unavailable, resolve: unavailable };
export default path;
