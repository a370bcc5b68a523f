// The live source kinds: what the source picker offers, how each kind's parameters are validated, and how
// a source of that kind is opened. The view draws a kind's form from its `fields` and the engine checks
// what comes back against its `schema`, so adding a kind means adding one entry to `builtInKinds`,
// nothing else.
//
//   const source = await sourceKinds.open({ kind: 'generator', frequency: 1000 });   // a LiveSource
//   const kinds = await sourceKinds.describe();                                       // for hello

import { basename } from 'node:path';
import { z } from 'zod';
import { InvalidArgumentError, type WarningHandler } from '../errors.js';
import { openSource } from '../io/index.js';
import type { LiveSource } from './live-source.js';
import { pacedSource } from './pace.js';
import type { AudioDevice, SourceField, SourceKind, SourceParams } from '../protocol/messages.js';
import { streamBand } from '../protocol/shape.js';
import { createGenerator, type ChirpSpec } from './generator.js';
import { listMicrophones, openMicrophone, probeMicrophone } from './mic.js';
import { openClientAudio } from './client-audio.js';
import { openRtlTcp } from './rtltcp.js';
import { TUNER_GAINS } from './rtltcp-gains.js';

export interface OpenContext {
  /** Non-fatal conditions (a truncated file…). */
  onWarning?: WarningHandler;
  /** The connection carries audio its client captures (binary blocks, `phasor serve`): a kind with
   * `capture` can be opened only then. */
  clientAudio?: boolean;
}

/** One kind of live source, typed by its parameters. */
export interface SourceKindDefinition<P extends { kind: string }> {
  readonly kind: string;
  readonly label: string;
  /** The form the view draws (defaults here must pass the schema). */
  readonly fields: readonly SourceField[];
  /** Validates and completes parameters (defaults filled in). */
  readonly schema: z.ZodType<P>;
  /** Why the kind cannot be used here (with how to fix it), or undefined. Never throws. */
  probe?(): Promise<string | undefined>;
  /** Opens an endless live source (real time, or paced to it). */
  open(params: P, context: OpenContext): Promise<LiveSource>;
  /** Devices to choose from, for kinds with a 'device' field. */
  listDevices?(): Promise<AudioDevice[]>;
  /** Parameters from the part of a command-line spec after "kind:" (e.g. "1000" in generator:1000). */
  fromSpec?(rest: string): Record<string, unknown>;
  /** Its sources take `retune` (a new centre frequency while streaming). */
  readonly tunable?: boolean;
  /** The client captures the samples and sends them over its connection (SourceKind.capture). */
  readonly capture?: 'browser-audio';
}

/** A kind with its parameter type erased, as the registry holds it. */
export interface SourceKindEntry {
  readonly kind: string;
  readonly label: string;
  readonly fields: readonly SourceField[];
  probe(): Promise<string | undefined>;
  /** Validated parameters with defaults; throws InvalidArgumentError naming what is wrong. */
  parse(params: unknown): SourceParams;
  open(params: unknown, context?: OpenContext): Promise<LiveSource>;
  listDevices?(): Promise<AudioDevice[]>;
  fromSpec?(rest: string): Record<string, unknown>;
  readonly tunable?: boolean;
  readonly capture?: 'browser-audio';
}

function describeIssues(label: string, error: z.ZodError): string {
  const parts = error.issues.slice(0, 4).map((i) => {
    const where = i.path.length > 0 ? i.path.join('.') : 'parameters';
    return `${where}: ${i.message}`;
  });
  return `${label} source: ${parts.join('; ')}`;
}

export function defineSourceKind<P extends { kind: string }>(def: SourceKindDefinition<P>): SourceKindEntry {
  const parse = (params: unknown): P => {
    const r = def.schema.safeParse(params);
    if (!r.success) throw new InvalidArgumentError(describeIssues(def.label, r.error));
    return r.data;
  };
  return {
    kind: def.kind,
    label: def.label,
    fields: def.fields,
    probe: async () => {
      try {
        return def.probe ? await def.probe() : undefined;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
    parse: (params) => parse(params),
    open: (params, context = {}) => {
      let p: P;
      try {
        p = parse(params);
      } catch (err) {
        return Promise.reject(err);
      }
      return def.open(p, context);
    },
    ...(def.listDevices ? { listDevices: () => def.listDevices!() } : {}),
    ...(def.fromSpec ? { fromSpec: (rest: string) => def.fromSpec!(rest) } : {}),
    ...(def.tunable ? { tunable: true } : {}),
    ...(def.capture ? { capture: def.capture } : {}),
  };
}

const SI: Record<string, number> = { k: 1e3, K: 1e3, M: 1e6, G: 1e9 };

/** "1000", "1k", "2.4M" → Hz; NaN when it is not a number. */
function parseHz(text: string): number {
  const m = /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([kKMG])?\s*(?:Hz)?\s*$/.exec(text);
  return m ? Number(m[1]) * (m[2] ? SI[m[2]] : 1) : NaN;
}

// ---------------------------------------------------------------------------------------------------
// generator

const generatorSchema = z
  .object({
    kind: z.literal('generator'),
    sampleRate: z.number().min(1000).max(100e6).default(48000),
    complex: z.boolean().default(false),
    centerFrequency: z.number().default(0),
    frequency: z.number().default(1000),
    amplitude: z.number().min(0).max(1).default(0.5),
    chirp: z.boolean().default(false),
    chirpFrom: z.number().default(100),
    chirpTo: z.number().default(20000),
    chirpPeriod: z.number().min(0.01).max(3600).default(5),
    chirpAmplitude: z.number().min(0).max(1).default(0.25),
    noise: z.number().min(-200).max(0).default(-80),
  })
  .superRefine((p, ctx) => {
    const [lo, hi] = streamBand(p.sampleRate, p.complex);
    const check = (name: string, f: number): void => {
      if (f < lo || f > hi) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must be between ${lo} and ${hi} Hz at ${p.sampleRate} Hz sample rate (${p.complex ? 'complex' : 'real'})`,
        });
      }
    };
    check('frequency', p.frequency);
    if (p.chirp) {
      check('chirpFrom', p.chirpFrom);
      check('chirpTo', p.chirpTo);
    }
  });
type GeneratorParams = z.infer<typeof generatorSchema>;

const RATE_OPTIONS = [8000, 16000, 22050, 32000, 44100, 48000, 96000, 192000];

const generatorKind = defineSourceKind<GeneratorParams>({
  kind: 'generator',
  label: 'Generator',
  fields: [
    { name: 'frequency', label: 'Tone frequency', type: 'number', default: 1000, step: 1, unit: 'Hz' },
    { name: 'amplitude', label: 'Tone amplitude', type: 'number', default: 0.5, min: 0, max: 1, step: 0.01 },
    { name: 'chirp', label: 'Chirp', type: 'boolean', default: false },
    { name: 'chirpFrom', label: 'Chirp from', type: 'number', default: 100, unit: 'Hz' },
    { name: 'chirpTo', label: 'Chirp to', type: 'number', default: 20000, unit: 'Hz' },
    {
      name: 'chirpPeriod',
      label: 'Chirp period',
      type: 'number',
      default: 5,
      min: 0.01,
      max: 3600,
      unit: 's',
    },
    {
      name: 'chirpAmplitude',
      label: 'Chirp amplitude',
      type: 'number',
      default: 0.25,
      min: 0,
      max: 1,
      step: 0.01,
    },
    {
      name: 'noise',
      label: 'Noise level',
      type: 'number',
      default: -80,
      min: -200,
      max: 0,
      step: 1,
      unit: 'dBFS',
    },
    {
      name: 'sampleRate',
      label: 'Sample rate',
      type: 'number',
      default: 48000,
      min: 1000,
      max: 100e6,
      unit: 'Hz',
    },
    { name: 'complex', label: 'Complex (I/Q)', type: 'boolean', default: false },
    { name: 'centerFrequency', label: 'Centre frequency (I/Q)', type: 'number', default: 0, unit: 'Hz' },
  ],
  schema: generatorSchema,
  open: async (p) => {
    const chirps: ChirpSpec[] = p.chirp
      ? [{ f0: p.chirpFrom, f1: p.chirpTo, period: p.chirpPeriod, amplitude: p.chirpAmplitude }]
      : [];
    // dBFS of the noise's RMS (AES17: a full-scale real sine, RMS 1/√2, reads 0 dBFS).
    const rms = p.noise <= -200 ? 0 : Math.pow(10, p.noise / 20) / (p.complex ? 1 : Math.SQRT2);
    const gen = createGenerator({
      sampleRate: p.sampleRate,
      complex: p.complex,
      ...(p.complex && p.centerFrequency !== 0 ? { centerFrequency: p.centerFrequency } : {}),
      tones: p.amplitude > 0 ? [{ frequency: p.frequency, amplitude: p.amplitude }] : [],
      chirps,
      ...(rms > 0 ? { noise: { rms } } : {}),
      seed: 1,
    });
    const what = p.amplitude > 0 ? `tone ${p.frequency} Hz` : p.chirp ? 'chirp' : 'noise';
    return pacedSource(gen, { label: `generator: ${what}` });
  },
  fromSpec: (rest) => {
    if (rest === '') return {};
    const f = parseHz(rest);
    if (!Number.isFinite(f)) {
      throw new InvalidArgumentError(
        `generator:FREQ takes a tone frequency in Hz (e.g. generator:1000), got "${rest}"`,
      );
    }
    return { frequency: f };
  },
});

// ---------------------------------------------------------------------------------------------------
// mic

const micSchema = z.object({
  kind: z.literal('mic'),
  device: z.string().max(512).default(''),
  sampleRate: z.number().int().min(0).max(1_000_000).default(48000),
  channel: z.number().int().min(1).max(256).default(1),
});
type MicParams = z.infer<typeof micSchema>;

const micKind = defineSourceKind<MicParams>({
  kind: 'mic',
  label: 'Microphone',
  fields: [
    { name: 'device', label: 'Device', type: 'device', default: '' },
    {
      name: 'sampleRate',
      label: 'Sample rate',
      type: 'select',
      default: 48000,
      unit: 'Hz',
      options: [
        { value: 0, label: 'device default' },
        ...RATE_OPTIONS.map((r) => ({ value: r, label: String(r) })),
      ],
    },
    { name: 'channel', label: 'Channel', type: 'number', default: 1, min: 1, max: 256, step: 1 },
  ],
  schema: micSchema,
  probe: () => probeMicrophone(),
  listDevices: () => listMicrophones(),
  open: (p) => openMicrophone({ device: p.device, sampleRate: p.sampleRate, channel: p.channel - 1 }),
  fromSpec: (rest) => (rest === '' ? {} : { device: rest }),
});

// ---------------------------------------------------------------------------------------------------
// file

const fileSchema = z.object({
  kind: z.literal('file'),
  path: z.string().min(1, 'choose a file').max(4096),
  loop: z.boolean().default(true),
  format: z.enum(['auto', 'cu8', 'cs8', 'cs16', 'cf32']).default('auto'),
  rate: z.number().min(0).max(1e11).default(0),
  center: z.number().default(0),
  iq: z.boolean().default(false),
  channel: z.number().int().min(1).max(65535).default(1),
});
type FileParams = z.infer<typeof fileSchema>;

const fileKind = defineSourceKind<FileParams>({
  kind: 'file',
  label: 'File (played back in real time)',
  fields: [
    { name: 'path', label: 'File', type: 'file', default: '' },
    { name: 'loop', label: 'Loop', type: 'boolean', default: true },
    {
      name: 'format',
      label: 'Raw format',
      type: 'select',
      default: 'auto',
      options: [
        { value: 'auto', label: 'from the file' },
        { value: 'cu8', label: 'cu8 (rtl_sdr)' },
        { value: 'cs8', label: 'cs8' },
        { value: 'cs16', label: 'cs16' },
        { value: 'cf32', label: 'cf32' },
      ],
    },
    {
      name: 'rate',
      label: 'Raw sample rate (0: from the file)',
      type: 'number',
      default: 0,
      min: 0,
      unit: 'Hz',
    },
    { name: 'center', label: 'Centre frequency (0: from the file)', type: 'number', default: 0, unit: 'Hz' },
    { name: 'iq', label: 'Two-channel WAV is I/Q', type: 'boolean', default: false },
    { name: 'channel', label: 'Channel', type: 'number', default: 1, min: 1, step: 1 },
  ],
  schema: fileSchema,
  open: async (p, context) => {
    const source = await openSource(p.path, {
      ...(p.format !== 'auto' ? { format: p.format } : {}),
      ...(p.rate > 0 ? { rate: p.rate } : {}),
      ...(p.center !== 0 ? { center: p.center } : {}),
      ...(p.iq ? { iq: true } : {}),
      ...(context.onWarning ? { onWarning: context.onWarning } : {}),
    });
    if (p.channel > source.info.channels) {
      await source.close();
      throw new InvalidArgumentError(
        `${basename(p.path)} has ${source.info.channels} channel${source.info.channels === 1 ? '' : 's'}; channel ${p.channel} does not exist`,
      );
    }
    if (source.info.samples === 0) {
      await source.close();
      throw new InvalidArgumentError(`${basename(p.path)} holds no samples`);
    }
    return pacedSource(source, { label: basename(p.path), loop: p.loop, channel: p.channel - 1 });
  },
  fromSpec: (rest) => ({ path: rest }),
});

// ---------------------------------------------------------------------------------------------------
// rtl_tcp

/** Sample rates the RTL2832 takes (it accepts 225001–300000 and 900001–3200000 Hz). */
const RTL_RATES = [250000, 1024000, 1400000, 1800000, 1920000, 2048000, 2400000, 2560000, 2880000, 3200000];
const R820T_GAINS_DB = TUNER_GAINS[5].map((g) => g / 10);

const rtlTcpSchema = z.object({
  kind: z.literal('rtl_tcp'),
  host: z.string().trim().min(1, "give the server's host name or address").max(255).default('127.0.0.1'),
  port: z.number().int().min(1).max(65535).default(1234),
  centerFrequency: z.number().min(0).max(0xffffffff).default(100e6),
  sampleRate: z
    .number()
    .int()
    .refine((r) => (r > 225000 && r <= 300000) || (r > 900000 && r <= 3200000), {
      message: 'the RTL2832 takes 225001–300000 or 900001–3200000 Hz',
    })
    .default(2048000),
  // A select sends 'auto' or a number; a form may hand numbers over as text.
  gain: z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
      z.union([z.literal('auto'), z.number().min(-10).max(60)]),
    )
    .default('auto'),
  ppm: z.number().int().min(-1000).max(1000).default(0),
  agc: z.boolean().default(false),
  directSampling: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(0),
  offsetTuning: z.boolean().default(false),
  biasTee: z.boolean().default(false),
});
type RtlTcpParams = z.infer<typeof rtlTcpSchema>;

const rtlTcpKind = defineSourceKind<RtlTcpParams>({
  kind: 'rtl_tcp',
  label: 'rtl_tcp (RTL-SDR over TCP)',
  tunable: true,
  fields: [
    { name: 'host', label: 'Host', type: 'text', default: '127.0.0.1' },
    { name: 'port', label: 'Port', type: 'number', default: 1234, min: 1, max: 65535, step: 1 },
    {
      name: 'centerFrequency',
      label: 'Centre frequency',
      type: 'number',
      default: 100e6,
      min: 0,
      max: 0xffffffff,
      step: 1000,
      unit: 'Hz',
    },
    {
      name: 'sampleRate',
      label: 'Sample rate',
      type: 'select',
      default: 2048000,
      unit: 'Hz',
      options: RTL_RATES.map((r) => ({ value: r, label: String(r) })),
    },
    {
      name: 'gain',
      label: 'Gain',
      type: 'select',
      default: 'auto',
      unit: 'dB',
      options: [
        { value: 'auto', label: 'auto' },
        ...R820T_GAINS_DB.map((g) => ({ value: g, label: String(g) })),
      ],
      note: "snaps to the connected tuner's gain steps",
    },
    {
      name: 'ppm',
      label: 'Frequency correction',
      type: 'number',
      default: 0,
      min: -1000,
      max: 1000,
      step: 1,
      unit: 'ppm',
    },
    { name: 'agc', label: 'RTL2832 AGC', type: 'boolean', default: false },
    {
      name: 'directSampling',
      label: 'Direct sampling',
      type: 'select',
      default: 0,
      options: [
        { value: 0, label: 'off' },
        { value: 1, label: 'I branch' },
        { value: 2, label: 'Q branch' },
      ],
    },
    { name: 'offsetTuning', label: 'Offset tuning', type: 'boolean', default: false },
    {
      name: 'biasTee',
      label: 'Bias tee',
      type: 'boolean',
      default: false,
      note: 'some rtl_tcp forks read command 0x0e as tuner bandwidth',
    },
  ],
  schema: rtlTcpSchema,
  open: (p) =>
    openRtlTcp({
      host: p.host,
      port: p.port,
      centerFrequency: p.centerFrequency,
      sampleRate: p.sampleRate,
      gain: p.gain,
      ppm: p.ppm,
      agc: p.agc,
      directSampling: p.directSampling,
      offsetTuning: p.offsetTuning,
      biasTee: p.biasTee,
    }),
  // The registry splits "rtl_tcp://HOST:PORT" at the first ':', so this gets "//HOST:PORT".
  fromSpec: (rest) => {
    if (rest === '') return {};
    const m = /^\/\/(?:\[([0-9A-Fa-f:.%\w]+)\]|([^:/[\]\s]+))(?::(\d{1,5}))?\/?$/.exec(rest);
    if (!m) {
      throw new InvalidArgumentError(
        `rtl_tcp://HOST[:PORT] takes a host and a port (rtl_tcp://127.0.0.1:1234, rtl_tcp://[::1]:1234), got "rtl_tcp:${rest.slice(0, 80)}"`,
      );
    }
    return { host: m[1] ?? m[2], ...(m[3] !== undefined ? { port: Number(m[3]) } : {}) };
  },
});

// ---------------------------------------------------------------------------------------------------
// browser-mic: the client's own microphone, captured by the page (getUserMedia and an AudioWorklet) and
// streamed over its connection (sources/client-audio.ts). The page fills in the sample rate of its
// AudioContext and the device's name; the person has nothing to set.

const browserMicSchema = z.object({
  kind: z.literal('browser-mic'),
  sampleRate: z.number().int().min(8000).max(384000).default(48000),
  device: z.string().max(200).default(''),
});
type BrowserMicParams = z.infer<typeof browserMicSchema>;

const browserMicKind = defineSourceKind<BrowserMicParams>({
  kind: 'browser-mic',
  label: "This browser's microphone",
  capture: 'browser-audio',
  fields: [],
  schema: browserMicSchema,
  open: async (p, context) => {
    if (!context.clientAudio) {
      throw new InvalidArgumentError(
        "This browser's microphone is captured by a web page of `phasor serve`; here there is no page to capture it (use mic)",
      );
    }
    return openClientAudio({ sampleRate: p.sampleRate, label: p.device });
  },
});

// ---------------------------------------------------------------------------------------------------
// The registry

export const builtInKinds: readonly SourceKindEntry[] = [
  generatorKind,
  micKind,
  browserMicKind,
  fileKind,
  rtlTcpKind,
];

export class SourceKindRegistry {
  readonly #kinds: readonly SourceKindEntry[];

  constructor(kinds: readonly SourceKindEntry[] = builtInKinds) {
    this.#kinds = kinds;
  }

  list(): readonly SourceKindEntry[] {
    return this.#kinds;
  }

  /** The kind, or an InvalidArgumentError listing the kinds there are. */
  get(kind: unknown): SourceKindEntry {
    const k = this.#kinds.find((x) => x.kind === kind);
    if (!k) {
      throw new InvalidArgumentError(
        `unknown source kind "${String(kind).slice(0, 40)}"; choose one of: ${this.#kinds.map((x) => x.kind).join(', ')}`,
      );
    }
    return k;
  }

  /** Every kind for the hello reply, with why it is unavailable where it is. */
  async describe(): Promise<SourceKind[]> {
    return Promise.all(
      this.#kinds.map(async (k) => {
        const reason = await k.probe();
        const d: SourceKind = { kind: k.kind, label: k.label, fields: k.fields.map((f) => ({ ...f })) };
        if (reason !== undefined) d.unavailable = reason;
        if (k.tunable) d.tunable = true;
        if (k.capture) d.capture = k.capture;
        return d;
      }),
    );
  }

  parse(params: unknown): SourceParams {
    const kind =
      typeof params === 'object' && params !== null ? (params as { kind?: unknown }).kind : undefined;
    return this.get(kind).parse(params);
  }

  async open(params: unknown, context: OpenContext = {}): Promise<LiveSource> {
    const kind =
      typeof params === 'object' && params !== null ? (params as { kind?: unknown }).kind : undefined;
    const k = this.get(kind);
    const reason = await k.probe();
    if (reason !== undefined) throw new InvalidArgumentError(`${k.label} is not available: ${reason}`);
    return k.open(params, context);
  }

  async listDevices(kind: string): Promise<AudioDevice[]> {
    const k = this.get(kind);
    return k.listDevices ? k.listDevices() : [];
  }

  /**
   * Parameters from a command-line spec: "KIND" or "KIND:REST" (mic:DEVICE, generator:1000, file:PATH).
   * Anything else that names an existing kind's prefix is refused with the kinds listed.
   */
  fromSpec(spec: string): SourceParams {
    const i = spec.indexOf(':');
    const name = i < 0 ? spec : spec.slice(0, i);
    const rest = i < 0 ? '' : spec.slice(i + 1);
    const k = this.get(name);
    const extra = k.fromSpec ? k.fromSpec(rest) : {};
    if (!k.fromSpec && rest !== '') {
      throw new InvalidArgumentError(`source ${k.kind} takes no ":" argument, got "${spec}"`);
    }
    return k.parse({ kind: k.kind, ...extra });
  }
}

/** The kinds this build offers. */
export const sourceKinds = new SourceKindRegistry();
