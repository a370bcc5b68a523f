import { Option, type Command } from 'commander';
import type { Backend } from '../../engine/backends/backend.js';
import { backendNames, getProvider, hostProviders, listBackends } from '../../engine/backends/registry.js';
import { cpuPrecisions, type CpuPrecision } from '../../engine/backends/cpu/index.js';
import { BackendUnavailableError, InvalidArgumentError } from '../../engine/errors.js';
import { openOutputFile } from '../../engine/output/atomic.js';
import {
  benchOps,
  machineInfo,
  runBench,
  runDeviceBenches,
  type BenchOp,
  type BenchRow,
  type DeviceBenchRow,
} from '../../engine/pipeline/bench.js';
import type { DeviceTimerInfo } from '../../engine/protocol/messages.js';
import { parseIntOption, table } from '../util.js';

interface BenchCli {
  precision: CpuPrecision;
  backend: string;
  op: string;
  sizes?: string;
  samples: number;
  repeats: number;
  json?: string;
  device: boolean;
  deviceSamples?: number;
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      'time every available backend on the same inputs: medians, throughput, error vs float64, ratio to CPU',
    )
    .option('--backend <list>', `comma-separated backends or "all" (${backendNames.join(', ')})`, 'all')
    .option('--op <list>', `operations: ${benchOps.join(',')}`, benchOps.join(','))
    .addOption(
      new Option(
        '--precision <p>',
        "the CPU backend's arithmetic: single (float32 SIMD for power-of-two sizes) or double (float64); " +
          'the GPU backends compute in float32 either way',
      )
        .choices([...cpuPrecisions])
        .default('single'),
    )
    .option(
      '--sizes <list>',
      'comma-separated sizes (transform lengths; taps for fir; template length for correlate)',
    )
    .option(
      '--samples <n>',
      'input samples per timed call',
      (v) => parseIntOption(v, '--samples', 1024),
      1 << 20,
    )
    .option(
      '--repeats <n>',
      'timed repetitions per row (median reported)',
      (v) => parseIntOption(v, '--repeats', 1),
      5,
    )
    .option('--json <file>', 'also write the rows and the machine as JSON to this file')
    .option(
      '--device-samples <n>',
      'samples per device-timed measurement (default 2^27 for transforms, 2^26 for streams; a software ' +
        'WebGPU adapter times at most 2^18)',
      (v) => parseIntOption(v, '--device-samples', 1024),
    )
    .option(
      '--no-device',
      "leave out the GPU backends' device-timed rows (CUDA events, WebGPU timestamp queries: kernel-only, " +
        'end-to-end, and the reference: cuFFT for CUDA, the unfused pipelines for WebGPU)',
    )
    .action(async (opts: BenchCli) => {
      const ops = opts.op.split(',').map((s) => s.trim());
      for (const op of ops) {
        if (!(benchOps as readonly string[]).includes(op)) {
          throw new InvalidArgumentError(`unknown --op "${op}"; choose from ${benchOps.join(', ')}`);
        }
      }
      const sizes = opts.sizes?.split(',').map((s) => parseIntOption(s.trim(), '--sizes', 1));
      const all = await listBackends();
      const wanted =
        opts.backend === 'all' ? all.map((b) => b.name) : opts.backend.split(',').map((s) => s.trim());
      const backends: Backend[] = [];
      const skipped: string[] = [];
      // CPU first: its rows are the reference for the ratios.
      wanted.sort((a, b) => (a === 'cpu' ? -1 : b === 'cpu' ? 1 : 0));
      const hosted = hostProviders({ cpuPrecision: opts.precision });
      for (const name of wanted) {
        const provider = hosted.find((p) => p.name === getProvider(name).name)!;
        const a = all.find((x) => x.name === provider.name);
        if (!a?.available) {
          const reason = a && !a.available ? a.reason : 'unknown';
          if (opts.backend !== 'all') throw new BackendUnavailableError(name, reason);
          skipped.push(`${name}: ${reason}`);
          continue;
        }
        backends.push(await provider.create());
      }
      const machine = machineInfo();
      process.stderr.write(
        `phasor bench on ${machine.cpu} (${machine.threads} threads), node ${machine.node}\n`,
      );
      for (const b of backends) process.stderr.write(`  ${b.name}: ${b.device}\n`);
      for (const s of skipped) process.stderr.write(`  ${s} (not benchmarked)\n`);
      let rows: BenchRow[];
      let deviceRows: DeviceBenchRow[] = [];
      let timers: DeviceTimerInfo[] = [];
      try {
        rows = await runBench(backends, {
          ops: ops as BenchOp[],
          ...(sizes ? { sizes } : {}),
          samples: opts.samples,
          repeats: opts.repeats,
          onRow: (r) =>
            process.stderr.write(
              `  ${r.backend} ${r.op} ${r.size}: ${(r.samplesPerSecond / 1e6).toFixed(1)} Msamples/s\n`,
            ),
        });
        if (opts.device) {
          ({ rows: deviceRows, timers } = await runDeviceBenches(backends, {
            ops: ops as BenchOp[],
            ...(sizes ? { sizes } : {}),
            ...(opts.deviceSamples ? { samples: opts.deviceSamples } : {}),
            onRow: (r) =>
              process.stderr.write(
                `  ${r.backend} ${r.op} ${r.size}${r.note ? ` (${r.note})` : ''} ${r.timing}: ${r.ms.toFixed(3)} ms\n`,
              ),
          }));
        }
      } finally {
        for (const b of backends) await b.dispose();
      }
      process.stdout.write(
        table(
          [
            'backend',
            'op',
            'size',
            'batch',
            'median ms',
            'Msamples/s',
            'GFLOP/s',
            'rel err',
            '× cpu',
            '× cuda',
          ],
          rows.map((r) => [
            r.backend,
            r.op,
            r.size,
            r.batch,
            r.medianMs.toFixed(3),
            (r.samplesPerSecond / 1e6).toFixed(1),
            r.gflops !== undefined ? r.gflops.toFixed(2) : '-',
            r.relError.toExponential(1),
            r.vsCpu !== undefined ? r.vsCpu.toFixed(2) : '-',
            r.vsCuda !== undefined ? r.vsCuda.toFixed(2) : '-',
          ]),
        ),
      );
      for (const t of timers) if (t.missing) process.stdout.write(`\n${t.backend}: ${t.missing}\n`);
      if (deviceRows.length > 0) {
        const how = timers
          .filter((t) => t.method)
          .map((t) => `${t.method} for ${t.backend}`)
          .join(', ');
        const pinned = timers.some((t) => t.backend === 'cuda' && t.method) ? ' (pinned for CUDA)' : '';
        const ref = timers
          .filter((t) => t.method)
          .map((t) =>
            t.backend === 'webgpu'
              ? 'webgpu: its unfused pipelines'
              : `${t.backend}: cuFFT and the unfused cuFFT pipelines`,
          )
          .join(', ');
        process.stdout.write(
          `\ndevice-timed (${how}; kernel = data on the device, end-to-end = from host memory${pinned}; ` +
            `× ref = speed over the reference, ${ref})\n`,
        );
        const pct = (x: number | undefined) => (x !== undefined ? `${(100 * x).toFixed(0)}%` : '-');
        process.stdout.write(
          table(
            [
              'backend',
              'op',
              'size',
              'timing',
              'ms',
              'Gsamples/s',
              'GB/s',
              '% copy',
              '% H2D',
              '× ref',
              '× cuda',
              'rel err',
              'note',
            ],
            deviceRows.map((r) => [
              r.backend,
              r.op,
              r.size,
              r.timing,
              r.ms.toFixed(3),
              (r.samplesPerSecond / 1e9).toFixed(2),
              r.gbPerSecond !== undefined ? r.gbPerSecond.toFixed(0) : '-',
              pct(r.ofCopy),
              pct(r.ofHostToDevice),
              r.vsReference !== undefined ? r.vsReference.toFixed(2) : '-',
              r.vsCuda !== undefined ? r.vsCuda.toFixed(2) : '-',
              r.relError.toExponential(1),
              r.note ?? '',
            ]),
          ),
        );
      }
      if (opts.json) {
        const text = JSON.stringify(
          { machine, backends: all, rows, deviceRows, deviceTimers: timers },
          null,
          2,
        );
        const file = await openOutputFile(opts.json);
        try {
          await file.write(new TextEncoder().encode(text + '\n'));
          await file.commit();
        } catch (e) {
          await file.abort();
          throw e;
        }
      }
    });
}
