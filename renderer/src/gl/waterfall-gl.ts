// The waterfall's WebGL2 side, kept thin. Textures: the history's levels (R32F ring, written with
// texSubImage2D straight from the history's CPU copy), a 256 × 1 colormap, and the display ring (RGBA8,
// canvas width × ring rows) that holds rows already coloured. Per frame: `color` runs the mapping shader
// over the new rows only (through a framebuffer), `composite` draws the canvas from the ring with one
// texel fetch per pixel. `drawDirect` maps every pixel at once, for views the ring cannot hold. Drawing
// allocates nothing: uniforms are set from reused parameter objects.

import { QUAD_FLOATS, compositeQuads } from '../lib/display-ring.js';
import {
  COLOR_SHADER,
  COMPOSITE_SHADER,
  DIRECT_SHADER,
  QUAD_VERTEX_SHADER,
  VERTEX_SHADER,
} from './shaders.js';

/** The frequency mapping and colouring (what the display ring's contents depend on). */
export interface ColorUniforms {
  view: { a: number; b: number };
  axisLo: number;
  axisHi: number;
  log: boolean;
  e0: number;
  e1: number;
  /** Columns per row in the level texture. */
  width: number;
  dbMin: number;
  dbMax: number;
}

/** Where rows go on the canvas (the time axis). */
export interface TimeUniforms {
  /** Rows of the ring in use (display ring rows for `composite`, level rows for `drawDirect`). */
  ringRows: number;
  /** Ring row of the newest row. */
  newest: number;
  /** Ages that can be drawn (0 draws only the background). */
  valid: number;
  /** Rows across the canvas height, and rows between the newest and the top edge. */
  rows: number;
  offset: number;
}

/** Background where no row is held until setBackground gives the theme's plot background (dark's). */
export const BACKGROUND_RGB = [11, 14, 19] as const;

const COLOR_NAMES = ['uLevels', 'uLut', 'uView', 'uAxis', 'uExtent', 'uWidth', 'uDb', 'uBackground'] as const;
const RING_NAMES = [...COLOR_NAMES, 'uPixels', 'uCapacity', 'uRun'] as const;
const DIRECT_NAMES = [...COLOR_NAMES, 'uSize', 'uCapacity', 'uNewest', 'uValid', 'uRows', 'uOffset'] as const;
const COMPOSITE_NAMES = ['uRing'] as const;

type Locations<N extends readonly string[]> = Record<N[number], WebGLUniformLocation | null>;

/** Texture units: levels, colormap, display ring. */
const UNIT_LEVELS = 0;
const UNIT_LUT = 1;
const UNIT_RING = 2;

function compile(gl: WebGL2RenderingContext, type: number, source: string): WebGLShader {
  const shader = gl.createShader(type);
  if (!shader) throw new Error('WebGL could not create a shader');
  gl.shaderSource(shader, source);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
    throw new Error(`waterfall shader did not compile: ${gl.getShaderInfoLog(shader) ?? ''}`);
  }
  return shader;
}

function link<N extends readonly string[]>(
  gl: WebGL2RenderingContext,
  vertex: WebGLShader,
  fragment: string,
  names: N,
): { program: WebGLProgram; loc: Locations<N> } {
  const program = gl.createProgram();
  if (!program) throw new Error('WebGL could not create a program');
  gl.attachShader(program, vertex);
  gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, fragment));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
    throw new Error(`waterfall program did not link: ${gl.getProgramInfoLog(program) ?? ''}`);
  }
  const loc = {} as Locations<N>;
  for (const name of names as readonly N[number][]) loc[name] = gl.getUniformLocation(program, name);
  return { program, loc };
}

function nearestTexture(gl: WebGL2RenderingContext): WebGLTexture {
  const t = gl.createTexture()!;
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  return t;
}

export class WaterfallGL {
  readonly gl: WebGL2RenderingContext;
  readonly maxTextureSize: number;
  private readonly ringProg: { program: WebGLProgram; loc: Locations<typeof RING_NAMES> };
  private readonly compositeProg: { program: WebGLProgram; loc: Locations<typeof COMPOSITE_NAMES> };
  private readonly directProg: { program: WebGLProgram; loc: Locations<typeof DIRECT_NAMES> };
  private readonly vao: WebGLVertexArrayObject;
  /** The composite's quads: a vertex array over a buffer rewritten each frame from `quads`. */
  private readonly quadVao: WebGLVertexArrayObject;
  private readonly quadBuffer: WebGLBuffer;
  private readonly quads = new Float32Array(QUAD_FLOATS);
  private readonly lut: WebGLTexture;
  private levels: WebGLTexture | null = null;
  private texWidth = 0;
  private texRows = 0;
  private ring: WebGLTexture | null = null;
  private readonly fbo: WebGLFramebuffer;
  /** Display ring size (texels); 0 × 0 before `allocateRing`. */
  ringWidth = 0;
  ringRows = 0;

  constructor(readonly canvas: HTMLCanvasElement) {
    const gl = canvas.getContext('webgl2', {
      alpha: false,
      antialias: false,
      depth: false,
      stencil: false,
      premultipliedAlpha: false,
      preserveDrawingBuffer: false,
      powerPreference: 'high-performance',
    });
    if (!gl) throw new Error('this browser has no WebGL2, which the waterfall needs');
    this.gl = gl;
    this.maxTextureSize = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    const vertex = compile(gl, gl.VERTEX_SHADER, VERTEX_SHADER);
    this.ringProg = link(gl, vertex, COLOR_SHADER, RING_NAMES);
    this.compositeProg = link(
      gl,
      compile(gl, gl.VERTEX_SHADER, QUAD_VERTEX_SHADER),
      COMPOSITE_SHADER,
      COMPOSITE_NAMES,
    );
    this.directProg = link(gl, vertex, DIRECT_SHADER, DIRECT_NAMES);
    this.vao = gl.createVertexArray()!;
    this.fbo = gl.createFramebuffer()!;
    this.quadVao = gl.createVertexArray()!;
    this.quadBuffer = gl.createBuffer()!;
    gl.bindVertexArray(this.quadVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quadBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, this.quads.byteLength, gl.DYNAMIC_DRAW);
    gl.enableVertexAttribArray(0);
    gl.vertexAttribPointer(0, 4, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);

    gl.activeTexture(gl.TEXTURE0 + UNIT_LUT);
    this.lut = gl.createTexture()!;
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 256, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);

    for (const { program, loc } of [this.ringProg, this.directProg]) {
      gl.useProgram(program);
      gl.uniform1i(loc.uLevels, UNIT_LEVELS);
      gl.uniform1i(loc.uLut, UNIT_LUT);
    }
    this.setBackground(BACKGROUND_RGB);
    gl.useProgram(this.compositeProg.program);
    gl.uniform1i(this.compositeProg.loc.uRing, UNIT_RING);
  }

  /** The colour (0…255 RGB) where no row is held: the theme's plot background. */
  setBackground(rgb: readonly number[]): void {
    const gl = this.gl;
    const [r, g, b] = rgb.map((v) => v / 255);
    gl.clearColor(r, g, b, 1);
    for (const { program, loc } of [this.ringProg, this.directProg]) {
      gl.useProgram(program);
      gl.uniform3f(loc.uBackground, r, g, b);
    }
  }

  /** Uploads a 256 × RGBA colormap (lib/colormap.ts). */
  setColormap(rgba: Uint8Array): void {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE0 + UNIT_LUT);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 256, 1, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  }

  /** (Re)creates the level texture for rows of `width` columns and `rows` history (on width changes only). */
  allocate(width: number, rows: number): void {
    const gl = this.gl;
    if (this.levels && width === this.texWidth && rows === this.texRows) return;
    if (this.levels) gl.deleteTexture(this.levels);
    gl.activeTexture(gl.TEXTURE0 + UNIT_LEVELS);
    // Levels are read with texelFetch (exact texels; R32F needs no filtering extension).
    this.levels = nearestTexture(gl);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32F, width, rows);
    this.texWidth = width;
    this.texRows = rows;
  }

  /**
   * (Re)creates the display ring, `width` texels (the canvas width) × `rows`, when its size changes.
   * Returns whether it did (its contents are then undefined).
   */
  allocateRing(width: number, rows: number): boolean {
    const gl = this.gl;
    if (this.ring && width === this.ringWidth && rows === this.ringRows) return false;
    if (this.ring) gl.deleteTexture(this.ring);
    gl.activeTexture(gl.TEXTURE0 + UNIT_RING);
    this.ring = nearestTexture(gl);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, width, rows);
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, this.ring, 0);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    this.ringWidth = width;
    this.ringRows = rows;
    return true;
  }

  /** Copies texture rows [row, row + n) from `levels` (the history's CPU copy, texWidth per row). */
  uploadRows(levels: Float32Array, row: number, n: number): void {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE0 + UNIT_LEVELS);
    gl.bindTexture(gl.TEXTURE_2D, this.levels);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    gl.texSubImage2D(
      gl.TEXTURE_2D,
      0,
      0,
      row,
      this.texWidth,
      n,
      gl.RED,
      gl.FLOAT,
      levels,
      row * this.texWidth,
    );
  }

  /** Sets the drawing buffer size (device pixels). */
  resize(width: number, height: number): void {
    if (this.canvas.width !== width) this.canvas.width = width;
    if (this.canvas.height !== height) this.canvas.height = height;
  }

  private bindInputs(): void {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE0 + UNIT_LEVELS);
    gl.bindTexture(gl.TEXTURE_2D, this.levels);
    gl.activeTexture(gl.TEXTURE0 + UNIT_LUT);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
  }

  private setColor(l: Locations<typeof COLOR_NAMES>, u: ColorUniforms): void {
    const gl = this.gl;
    gl.uniform2f(l.uView, u.view.a, u.view.b);
    // A linear axis goes to the shader relative to e0 (subtracted here in float64): absolute radio
    // frequencies (100 MHz and up) in float32 would be off by a good part of a column.
    const shift = u.log ? 0 : u.e0;
    gl.uniform3f(l.uAxis, u.axisLo - shift, u.axisHi - shift, u.log ? 1 : 0);
    gl.uniform2f(l.uExtent, u.e0 - shift, u.e1 - shift);
    gl.uniform1i(l.uWidth, u.width);
    gl.uniform2f(l.uDb, u.dbMin, u.dbMax);
  }

  /**
   * Colours display ring rows from level rows: `runs` holds `count` runs [ringRow, levelRow, n]
   * (lib/display-ring.ts), each contiguous in both textures.
   */
  color(u: ColorUniforms, runs: Int32Array, count: number): void {
    const gl = this.gl;
    if (!this.ring || !this.levels || count === 0) return;
    const { program, loc } = this.ringProg;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.useProgram(program);
    this.bindInputs();
    // The ring must not be sampled while it is the target.
    gl.activeTexture(gl.TEXTURE0 + UNIT_RING);
    gl.bindTexture(gl.TEXTURE_2D, null);
    this.setColor(loc, u);
    gl.uniform1f(loc.uPixels, this.ringWidth);
    gl.uniform1i(loc.uCapacity, this.texRows);
    gl.bindVertexArray(this.vao);
    gl.enable(gl.SCISSOR_TEST);
    for (let r = 0; r < count; r++) {
      const row = runs[3 * r];
      const n = runs[3 * r + 2];
      gl.uniform2i(loc.uRun, row, runs[3 * r + 1]);
      gl.viewport(0, row, this.ringWidth, n);
      gl.scissor(0, row, this.ringWidth, n);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
    }
    gl.disable(gl.SCISSOR_TEST);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  }

  /** Draws the canvas from the display ring: the background, then the ring's rows as up to two quads. */
  composite(t: TimeUniforms): void {
    const gl = this.gl;
    const { width, height } = this.canvas;
    gl.viewport(0, 0, width, height);
    gl.clear(gl.COLOR_BUFFER_BIT);
    const n = this.ring ? compositeQuads(t, this.quads) : 0;
    if (n === 0) return;
    const { program } = this.compositeProg;
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0 + UNIT_RING);
    gl.bindTexture(gl.TEXTURE_2D, this.ring);
    gl.bindVertexArray(this.quadVao);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.quadBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, this.quads, 0, n * 4);
    gl.drawArrays(gl.TRIANGLES, 0, n);
  }

  /** Maps and colours every pixel from the levels (views the display ring cannot hold). */
  drawDirect(u: ColorUniforms, t: TimeUniforms): void {
    const gl = this.gl;
    const { width, height } = this.canvas;
    const { program, loc } = this.directProg;
    gl.viewport(0, 0, width, height);
    gl.useProgram(program);
    this.bindInputs();
    this.setColor(loc, u);
    gl.uniform2f(loc.uSize, width, height);
    gl.uniform1i(loc.uCapacity, Math.max(1, t.ringRows));
    gl.uniform1i(loc.uNewest, t.newest);
    gl.uniform1i(loc.uValid, this.levels ? t.valid : 0);
    gl.uniform1f(loc.uRows, t.rows);
    gl.uniform1f(loc.uOffset, t.offset);
    gl.bindVertexArray(this.vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  dispose(): void {
    const gl = this.gl;
    if (this.levels) gl.deleteTexture(this.levels);
    if (this.ring) gl.deleteTexture(this.ring);
    gl.deleteFramebuffer(this.fbo);
    gl.deleteTexture(this.lut);
    gl.deleteProgram(this.ringProg.program);
    gl.deleteProgram(this.compositeProg.program);
    gl.deleteProgram(this.directProg.program);
    gl.deleteVertexArray(this.vao);
    gl.deleteVertexArray(this.quadVao);
    gl.deleteBuffer(this.quadBuffer);
  }
}
