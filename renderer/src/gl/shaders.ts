// GLSL ES 3.00 for the waterfall. Three fragment shaders; the colouring and direct ones share a vertex shader
// (a triangle covering the viewport):
// - COLOR_SHADER colours history rows into the display ring (lib/display-ring.ts): maps each texel to
//   frequency (lib/axis.ts, linear or log), takes the max of the columns it covers (lib/columns.ts) and
//   looks the level up in the colormap. It runs over the new rows only, or over the shown rows when the
//   mapping changes.
// - COMPOSITE_SHADER draws the canvas every frame from the ring: at most two textured quads (the ring
//   unrolled, lib/display-ring.ts compositeQuads), one interpolated texture fetch per pixel and no
//   per-pixel arithmetic, which is what a software rasterizer draws fastest.
// - DIRECT_SHADER does both at once for every pixel; used only when the ring cannot hold what the view
//   shows (a canvas wider than the largest texture, or more rows than the ring's memory budget allows).

export const VERTEX_SHADER = `#version 300 es
// One triangle covering the viewport; no vertex buffers.
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

const HEADER = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
`;

/** The colour of texel column i (of uSize.x) for history row `row`. */
const COLOR_FUNCTION = `
uniform sampler2D uLevels;   // R32F, width x capacity, dB
uniform sampler2D uLut;      // 256 x 1 RGBA8 colormap
uniform vec2 uView;          // visible fraction [a, b] of the axis
uniform vec3 uAxis;          // lo, hi (Hz or log10 Hz), log flag
uniform vec2 uExtent;        // e0, e1: frequency extent of the columns (Hz)
uniform int uWidth;          // columns per row in the texture
uniform vec2 uDb;            // level range (dB) mapped to the colormap
uniform vec3 uBackground;

const int MAX_TAPS = 32;

float columnAt(float s) {
  float u = mix(uAxis.x, uAxis.y, mix(uView.x, uView.y, s));
  float f = uAxis.z > 0.5 ? pow(10.0, u) : u;
  return (f - uExtent.x) / (uExtent.y - uExtent.x) * float(uWidth);
}

vec3 colorAt(float i, float pixels, int row) {
  float left = columnAt(i / pixels);
  float right = columnAt((i + 1.0) / pixels);
  int c0 = int(floor(left));
  int c1 = max(c0, int(ceil(right)) - 1);
  if (c1 < 0 || c0 >= uWidth) return uBackground;
  c0 = max(c0, 0);
  c1 = min(c1, uWidth - 1);
  // The loudest column under the pixel (strided beyond MAX_TAPS columns).
  int n = c1 - c0 + 1;
  int stride = (n + MAX_TAPS - 1) / MAX_TAPS;
  float level = -1e30;
  for (int k = 0; k < MAX_TAPS; k++) {
    int c = c0 + k * stride;
    if (c > c1) break;
    level = max(level, texelFetch(uLevels, ivec2(c, row), 0).r);
  }
  float t = clamp((level - uDb.x) / (uDb.y - uDb.x), 0.0, 1.0);
  return texture(uLut, vec2((t * 255.0 + 0.5) / 256.0, 0.5)).rgb;
}
`;

export const COLOR_SHADER = `${HEADER}${COLOR_FUNCTION}
uniform float uPixels;       // texels across the ring (the canvas width)
uniform int uCapacity;       // rows in the level texture
uniform ivec2 uRun;          // first ring row of this run, and its level texture row

out vec4 outColor;

void main() {
  int row = (uRun.y + int(gl_FragCoord.y) - uRun.x) % uCapacity;
  outColor = vec4(colorAt(gl_FragCoord.x - 0.5, uPixels, row), 1.0);
}
`;

/** The composite's quads (lib/display-ring.ts compositeQuads): clip-space position and ring texture uv. */
export const QUAD_VERTEX_SHADER = `#version 300 es
layout(location = 0) in vec4 aPosUv;
out vec2 vUv;
void main() {
  vUv = aPosUv.zw;
  gl_Position = vec4(aPosUv.xy, 0.0, 1.0);
}
`;

export const COMPOSITE_SHADER = `${HEADER}
uniform sampler2D uRing;     // RGBA8, canvas width x ring rows, coloured rows (nearest filtering)
in vec2 vUv;
out vec4 outColor;

void main() {
  outColor = texture(uRing, vUv);
}
`;

export const DIRECT_SHADER = `${HEADER}${COLOR_FUNCTION}
uniform vec2 uSize;          // canvas size (device px)
uniform int uCapacity;       // rows in the level texture
uniform int uNewest;         // texture row of the newest row
uniform int uValid;          // rows held
uniform float uRows;         // rows across the canvas height
uniform float uOffset;       // rows between the newest row and the top edge

out vec4 outColor;

void main() {
  float yTop = uSize.y - gl_FragCoord.y;
  int age = int(floor(uOffset + yTop * uRows / uSize.y));
  if (age < 0 || age >= uValid) { outColor = vec4(uBackground, 1.0); return; }
  int row = (uNewest - age + uCapacity) % uCapacity;
  outColor = vec4(colorAt(gl_FragCoord.x - 0.5, uSize.x, row), 1.0);
}
`;
