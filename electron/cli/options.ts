import { Option, type Command } from 'commander';
import { backendNames } from '../engine/backends/registry.js';
import { cpuPrecisions, defaultCpuPrecision } from '../engine/backends/cpu/precision.js';
import { parseHz } from './util.js';

/** --format/--rate/--center/--iq for raw and I/Q files, --backend, --json. */
export function addFileOptions(cmd: Command, what: { backend?: boolean } = {}): Command {
  cmd
    .option('--format <encoding>', 'raw IQ encoding: cu8 (rtl_sdr), cs8, cs16, cf32')
    .option('--rate <hz>', 'sample rate of a raw file (Hz; 48k, 2.4M…)', (v) => parseHz(v, '--rate'))
    .option('--center <hz>', 'centre frequency of I/Q samples (Hz)', (v) => parseHz(v, '--center'))
    .option('--iq', 'read a two-channel WAV as one complex I/Q channel')
    .option('--json', 'print machine-readable JSON on stdout (and nothing else there)');
  if (what.backend !== false) {
    cmd.addOption(
      new Option('--backend <name>', 'compute backend: auto picks the best available')
        .choices(['auto', ...backendNames])
        .default('auto'),
    );
    addPrecisionOption(cmd);
  }
  return cmd;
}

/** --precision: the CPU backend's arithmetic (the GPU backends compute in float32 and refuse double). */
export function addPrecisionOption(cmd: Command): Command {
  return cmd.addOption(
    new Option(
      '--precision <p>',
      'CPU arithmetic: single (float32 SIMD for power-of-two FFT sizes) or double (float64 throughout; ' +
        'implies --backend cpu, which auto then picks)',
    )
      .choices([...cpuPrecisions])
      .default(defaultCpuPrecision),
  );
}

/** --no-sync for commands that write a file: the output is renamed into place without waiting for the
 * disk (TemporaryOptions.durable). */
export function addSyncOption(cmd: Command): Command {
  return cmd.option(
    '--no-sync',
    'rename the output into place without first flushing it to the disk (faster for large outputs; a ' +
      'killed or failed job still leaves nothing under its name, a power loss may leave it incomplete)',
  );
}
