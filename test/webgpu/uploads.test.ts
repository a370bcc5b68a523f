// Host data to the device through HostUploads (gpu.ts): bytes arrive whole, a tail that is not a multiple
// of 4 is padded with zeros, the copies land in order with the commands around them, and staging buffers
// are mapped again after the submit and reused rather than made anew.
import { describe, expect, it } from 'vitest';
import { HostUploads, MAP_READ, STORAGE_USAGE, USAGE } from '../../electron/engine/backends/webgpu/gpu.js';
import { needsWebGpu, webgpuSuite } from './gpu.js';

const { b } = await webgpuSuite();

async function readBack(device: GPUDevice, src: GPUBuffer, bytes: number): Promise<Uint8Array> {
  const rb = device.createBuffer({ size: bytes, usage: MAP_READ | USAGE.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(src, 0, rb, 0, bytes);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(MAP_READ);
  const out = new Uint8Array(rb.getMappedRange().slice(0));
  rb.unmap();
  rb.destroy();
  return out;
}

describe('webgpu HostUploads', needsWebGpu(b), () => {
  it('writes whole bytes at an offset, pads the tail with zeros, in encoder order', async () => {
    const device = b!.ctx.device;
    const uploads = new HostUploads(device, 1);
    const dst = device.createBuffer({ size: 64, usage: STORAGE_USAGE });
    // fill the one staging buffer with non-zero bytes first, so a pad left unwritten would show
    let enc = device.createCommandEncoder();
    uploads.write(enc, dst, 32, new Uint8Array(16).fill(0xff));
    device.queue.submit([enc.finish()]);
    uploads.submitted();
    await device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 10));
    enc = device.createCommandEncoder();
    enc.clearBuffer(dst, 0, 64);
    uploads.write(enc, dst, 8, new Uint8Array([1, 2, 3, 4, 5, 6, 7])); // 7 bytes: padded to 8
    // a later write over part of the first lands after it
    uploads.write(enc, dst, 8, new Uint8Array([9, 9, 9, 9]));
    device.queue.submit([enc.finish()]);
    uploads.submitted();
    const got = await readBack(device, dst, 64);
    const want = new Uint8Array(64);
    want.set([9, 9, 9, 9, 5, 6, 7, 0], 8);
    expect(Array.from(got)).toEqual(Array.from(want));
    uploads.destroy();
    dst.destroy();
  });

  it('maps its staging buffers again after the submit and reuses them', async () => {
    const device = b!.ctx.device;
    const uploads = new HostUploads(device);
    const dst = device.createBuffer({ size: 1 << 16, usage: STORAGE_USAGE });
    const made: number[] = [];
    const create = device.createBuffer.bind(device);
    device.createBuffer = (d: GPUBufferDescriptor) => {
      if (d.label === 'phasor upload') made.push(d.size);
      return create(d);
    };
    try {
      for (let round = 0; round < 4; round++) {
        const data = new Float32Array(4096).map((_, i) => i + round);
        const enc = device.createCommandEncoder();
        uploads.write(enc, dst, 0, data);
        device.queue.submit([enc.finish()]);
        uploads.submitted();
        const got = new Float32Array((await readBack(device, dst, data.byteLength)).buffer);
        expect(got).toEqual(data);
        // the remap completes with the queue's work
        await device.queue.onSubmittedWorkDone();
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      device.createBuffer = create;
    }
    expect(made).toHaveLength(1);
    uploads.destroy();
    dst.destroy();
  });
});
