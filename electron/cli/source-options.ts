// The live-source options `phasor monitor` and `phasor record` share: --source and the tuning options
// (--center, --rate, --gain, --ppm), turned into a kind's parameters and checked against its fields.

import type { Command } from 'commander';
import { InvalidArgumentError } from '../engine/errors.js';
import type { SourceParams } from '../engine/protocol/messages.js';
import { sourceKinds } from '../engine/sources/kinds.js';
import { parseHz, parseNumber } from './util.js';

export interface TuningOptions {
  center?: number;
  rate?: number;
  gain?: string;
  ppm?: number;
}

/** What --source takes, for the help text. */
export const SOURCE_SPECS = 'mic[:DEVICE], generator[:FREQ], rtl_tcp://HOST:PORT, file:PATH';

/** Adds --center, --rate, --gain and --ppm to a command. */
export function addTuningOptions(command: Command): Command {
  return command
    .option('--center <hz>', 'centre frequency (rtl_tcp, a complex generator)', (v) => parseHz(v, '--center'))
    .option('--rate <hz>', 'sample rate', (v) => parseHz(v, '--rate'))
    .option('--gain <db>', "tuner gain in dB, or 'auto' (rtl_tcp)")
    .option('--ppm <p>', 'frequency correction in ppm (rtl_tcp)', (v) => parseNumber(v, '--ppm'));
}

/**
 * The source's parameters from --source and the tuning options given, checked against the kind's own
 * fields: an option the kind does not take is refused, not ignored.
 */
export function liveSourceParams(spec: string, extra: TuningOptions): SourceParams {
  const params: Record<string, unknown> = { ...sourceKinds.fromSpec(spec) };
  const kind = sourceKinds.get(params.kind);
  const given: Array<[string, string, unknown]> = [];
  if (extra.center !== undefined) given.push(['--center', 'centerFrequency', extra.center]);
  if (extra.rate !== undefined) given.push(['--rate', 'sampleRate', extra.rate]);
  if (extra.gain !== undefined) {
    const g = extra.gain.trim().toLowerCase();
    given.push(['--gain', 'gain', g === 'auto' ? 'auto' : parseNumber(g, '--gain')]);
  }
  if (extra.ppm !== undefined) given.push(['--ppm', 'ppm', extra.ppm]);
  for (const [option, field, value] of given) {
    if (!kind.fields.some((f) => f.name === field)) {
      throw new InvalidArgumentError(`${option} does not apply to the ${kind.kind} source`);
    }
    params[field] = value;
  }
  return kind.parse(params);
}
