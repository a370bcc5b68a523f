// The waterfall's WebGL2 side, kept thin: one program, a ring-buffer texture of levels (R32F) written with
// texSubImage2D straight from the history's CPU copy, a 256 × 1 colormap texture, and uniforms. Drawing
// allocates nothing: uniforms are set from a reused parameter object.

import { FRAGMENT_SHADER, VERTEX_SHADER } from './shaders.js';

export interface WaterfallUniforms {
  view: { a: number; b: number };
  axisLo: number;
  axisHi: number;
  log: boolean;
  e0: number;
  e1: number;
  width: number;
  capacity: number;
  newest: number;
  valid: number;
  rows: number;
  offset: number;
  dbMin: number;
  dbMax: number;
}

const UNIFORMS = [
  'uLevels',
  'uLut',
  'uSize',
  'uView',
  'uAxis',
  'uExtent',
  'uWidth',
  'uCapacity',
  'uNewest',
  'uValid',
  'uRows',
  'uOffset',
  'uDb',
  'uBackground',
] as const;
type UniformName = (typeof UNIFORMS)[number];

/** Background where no row is held (matches the app's plot background, #0b0e13). */
const BACKGROUND = [11 / 255, 14 / 255, 19 / 255] as const;

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

export class WaterfallGL {
  readonly gl: WebGL2RenderingContext;
  readonly maxTextureSize: number;
  private readonly program: WebGLProgram;
  private readonly vao: WebGLVertexArrayObject;
  private readonly lut: WebGLTexture;
  private levels: WebGLTexture | null = null;
  private texWidth = 0;
  private texRows = 0;
  private readonly loc: Record<UniformName, WebGLUniformLocation | null>;

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
    const program = gl.createProgram();
    if (!program) throw new Error('WebGL could not create a program');
    gl.attachShader(program, compile(gl, gl.VERTEX_SHADER, VERTEX_SHADER));
    gl.attachShader(program, compile(gl, gl.FRAGMENT_SHADER, FRAGMENT_SHADER));
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
      throw new Error(`waterfall program did not link: ${gl.getProgramInfoLog(program) ?? ''}`);
    }
    this.program = program;
    this.vao = gl.createVertexArray()!;
    const loc = {} as Record<UniformName, WebGLUniformLocation | null>;
    for (const name of UNIFORMS) loc[name] = gl.getUniformLocation(program, name);
    this.loc = loc;

    this.lut = gl.createTexture()!;
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 256, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);

    gl.useProgram(program);
    gl.uniform1i(loc.uLevels, 0);
    gl.uniform1i(loc.uLut, 1);
    gl.uniform3f(loc.uBackground, BACKGROUND[0], BACKGROUND[1], BACKGROUND[2]);
  }

  /** Uploads a 256 × RGBA colormap (lib/colormap.ts). */
  setColormap(rgba: Uint8Array): void {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 256, 1, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  }

  /** (Re)creates the level texture for rows of `width` columns and `rows` history (on width changes only). */
  allocate(width: number, rows: number): void {
    const gl = this.gl;
    if (this.levels && width === this.texWidth && rows === this.texRows) return;
    if (this.levels) gl.deleteTexture(this.levels);
    this.levels = gl.createTexture()!;
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.levels);
    // Levels are read with texelFetch (exact texels; R32F needs no filtering extension).
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32F, width, rows);
    this.texWidth = width;
    this.texRows = rows;
  }

  /** Copies texture rows [row, row + n) from `levels` (the history's CPU copy, texWidth per row). */
  uploadRows(levels: Float32Array, row: number, n: number): void {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE0);
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

  draw(u: WaterfallUniforms): void {
    const gl = this.gl;
    const { width, height } = this.canvas;
    gl.viewport(0, 0, width, height);
    gl.useProgram(this.program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.levels);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.lut);
    const l = this.loc;
    gl.uniform2f(l.uSize, width, height);
    gl.uniform2f(l.uView, u.view.a, u.view.b);
    gl.uniform3f(l.uAxis, u.axisLo, u.axisHi, u.log ? 1 : 0);
    gl.uniform2f(l.uExtent, u.e0, u.e1);
    gl.uniform1i(l.uWidth, u.width);
    gl.uniform1i(l.uCapacity, u.capacity);
    gl.uniform1i(l.uNewest, u.newest);
    gl.uniform1i(l.uValid, this.levels ? u.valid : 0);
    gl.uniform1f(l.uRows, u.rows);
    gl.uniform1f(l.uOffset, u.offset);
    gl.uniform2f(l.uDb, u.dbMin, u.dbMax);
    gl.bindVertexArray(this.vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  dispose(): void {
    const gl = this.gl;
    if (this.levels) gl.deleteTexture(this.levels);
    gl.deleteTexture(this.lut);
    gl.deleteProgram(this.program);
    gl.deleteVertexArray(this.vao);
  }
}
