// Raw integer samples decoded on the device: value = (raw − offset) · scale, as RawSamples declares.
// The raw bytes arrive as 32-bit words (the host pads the tail); kind 0 = u8, 1 = i8, 2 = i16 (little
// endian). decode writes `total` floats of dst from dst[outBase], reading raw elements from inStart.

const WG: u32 = 256u; //! threads per workgroup

struct Params {
  total: u32,
  groupsX: u32,
  kind: u32,
  inStart: u32, // first raw element read
  outBase: u32, // first float written
  offset: f32,
  scale: f32,
}

@group(0) @binding(0) var<storage, read> raw: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> p: Params;

@compute @workgroup_size(WG)
fn decode(@builtin(global_invocation_id) gid: vec3<u32>) {
  let g = gid.y * p.groupsX * WG + gid.x;
  if (g >= p.total) {
    return;
  }
  let e = p.inStart + g;
  var v: f32;
  if (p.kind == 2u) {
    let w = raw[e / 2u];
    let sh = 16u * (e % 2u);
    v = f32(bitcast<i32>(w << (16u - sh)) >> 16u);
  } else {
    let w = raw[e / 4u];
    let sh = 8u * (e % 4u);
    if (p.kind == 1u) {
      v = f32(bitcast<i32>(w << (24u - sh)) >> 24u);
    } else {
      v = f32((w >> sh) & 0xffu);
    }
  }
  dst[p.outBase + g] = (v - p.offset) * p.scale;
}
