// GLSL ES 3.00 for the waterfall. The fragment shader mirrors lib/axis.ts (screen → frequency, linear or
// log), lib/columns.ts (the columns a pixel covers, reduced by max) and lib/ring.ts (rowForAge).

export const VERTEX_SHADER = `#version 300 es
// One triangle covering the viewport; no vertex buffers.
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

export const FRAGMENT_SHADER = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D uLevels;   // R32F, width x capacity, dB
uniform sampler2D uLut;      // 256 x 1 RGBA8 colormap
uniform vec2 uSize;          // canvas size (device px)
uniform vec2 uView;          // visible fraction [a, b] of the axis
uniform vec3 uAxis;          // lo, hi (Hz or log10 Hz), log flag
uniform vec2 uExtent;        // e0, e1: frequency extent of the columns (Hz)
uniform int uWidth;          // columns per row in the texture
uniform int uCapacity;       // rows in the ring
uniform int uNewest;         // texture row of the newest row
uniform int uValid;          // rows held
uniform float uRows;         // rows across the canvas height
uniform float uOffset;       // rows between the newest row and the top edge
uniform vec2 uDb;            // level range (dB) mapped to the colormap
uniform vec3 uBackground;

out vec4 outColor;

const int MAX_TAPS = 32;

float columnAt(float s) {
  float u = mix(uAxis.x, uAxis.y, mix(uView.x, uView.y, s));
  float f = uAxis.z > 0.5 ? pow(10.0, u) : u;
  return (f - uExtent.x) / (uExtent.y - uExtent.x) * float(uWidth);
}

void main() {
  float yTop = uSize.y - gl_FragCoord.y;               // j + 0.5 for device row j from the top
  int age = int(floor(uOffset + yTop * uRows / uSize.y));
  if (age < 0 || age >= uValid) { outColor = vec4(uBackground, 1.0); return; }
  int row = (uNewest - age + uCapacity) % uCapacity;

  float i = gl_FragCoord.x - 0.5;                      // pixel index from the left
  float left = columnAt(i / uSize.x);
  float right = columnAt((i + 1.0) / uSize.x);
  int c0 = int(floor(left));
  int c1 = max(c0, int(ceil(right)) - 1);
  if (c1 < 0 || c0 >= uWidth) { outColor = vec4(uBackground, 1.0); return; }
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
  outColor = vec4(texture(uLut, vec2((t * 255.0 + 0.5) / 256.0, 0.5)).rgb, 1.0);
}
`;
