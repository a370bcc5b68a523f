// A private PulseAudio daemon (its own runtime folder and socket) with one null sink whose monitor is the
// default input: the real audio-capture path, without touching a desktop's sound server. Needs the Debian
// packages pulseaudio and pulseaudio-utils.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface PrivatePulse {
  /** PULSE_SERVER / PULSE_RUNTIME_PATH for every client of this daemon. */
  env: NodeJS.ProcessEnv;
  dir: string;
  sink: string;
  pactl(...args: string[]): { ok: boolean; out: string };
  /** Plays a file into the sink (returns the paplay process). */
  play(wav: string): ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, name)));
}

export async function startPulse(sink: string, rate: number): Promise<PrivatePulse> {
  const missing = ['pulseaudio', 'pactl', 'paplay'].filter((n) => !onPath(n));
  if (missing.length > 0) {
    throw new Error(
      `audio capture needs ${missing.join(', ')}: apt-get install -y pulseaudio pulseaudio-utils`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'phasor-pulse-'));
  const env: NodeJS.ProcessEnv = { PULSE_SERVER: `unix:${join(dir, 'native')}`, PULSE_RUNTIME_PATH: dir };
  let log = '';
  // -n: no default configuration; just a socket and one null sink (its monitor is the only source).
  const daemon = spawn(
    'pulseaudio',
    [
      '-n',
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--system=false',
      '--disallow-exit',
      '--log-target=stderr',
      `--load=module-native-protocol-unix auth-anonymous=1 socket=${join(dir, 'native')}`,
      `--load=module-null-sink sink_name=${sink} rate=${rate} sink_properties=device.description=PhasorTest`,
    ],
    { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  daemon.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const players: ChildProcess[] = [];
  const pactl = (...args: string[]) => {
    const r = spawnSync('pactl', args, { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10000 });
    return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
  };
  const started = Date.now();
  while (!pactl('info').ok) {
    if (Date.now() - started > 15000) {
      daemon.kill('SIGKILL');
      throw new Error(`PulseAudio did not start: ${log.trim().split('\n').pop() ?? ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!pactl('set-default-source', `${sink}.monitor`).ok) throw new Error('cannot set the default source');
  return {
    env,
    dir,
    sink,
    pactl,
    play(wav) {
      const p = spawn('paplay', [`--device=${sink}`, wav], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
      players.push(p);
      return p;
    },
    log: () => log,
    async stop() {
      for (const p of players) p.kill('SIGTERM');
      daemon.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
