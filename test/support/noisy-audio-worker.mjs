// A stand-in for the audio worker (electron/engine/sources/mic-worker.ts) that behaves like audify with
// ALSA's client library under it: every call first writes ALSA-style lines straight to file descriptor 2
// (as native code does, past any JS-level stderr), then answers. Device "Tone" streams a 1 kHz sine at
// 48 kHz (0.25 amplitude) in 256-frame blocks; any other device fails to open.
import { writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const NOISE = [
  "ALSA lib confmisc.c:855:(parse_card) cannot find card '0'",
  'ALSA lib conf.c:5204:(_snd_config_evaluate) function snd_func_card_inum returned error: No such file or directory',
  'ALSA lib confmisc.c:422:(snd_func_concat) error evaluating strings',
  'ALSA lib conf.c:5204:(_snd_config_evaluate) function snd_func_concat returned error: No such file or directory',
  'ALSA lib confmisc.c:1342:(snd_func_refer) error evaluating name',
  'ALSA lib conf.c:5204:(_snd_config_evaluate) function snd_func_refer returned error: No such file or directory',
  'ALSA lib conf.c:5727:(snd_config_expand) Evaluate error: No such file or directory',
  'ALSA lib pcm.c:2721:(snd_pcm_open_noupdate) Unknown PCM default',
  'Cannot connect to server socket err = No such file or directory',
];

const port = parentPort ?? process;
const post = (m) => (parentPort ? parentPort.postMessage(m) : process.connected && process.send(m));
if (!parentPort) process.once('disconnect', () => process.exit(0));
const timers = new Map();

port.on('message', (msg) => {
  writeSync(2, NOISE.join('\n') + '\n');
  const reply = (result) => post({ op: 'reply', id: msg.id, ok: true, result });
  const fail = (message) => post({ op: 'reply', id: msg.id, ok: false, message });
  switch (msg.op) {
    case 'probe':
      return reply({ available: true, api: 'alsa' });
    case 'list':
      return reply({
        api: 'alsa',
        devices: [
          {
            id: 'Tone',
            name: 'Tone',
            isDefault: true,
            channels: 1,
            sampleRates: [48000],
            preferredSampleRate: 48000,
          },
        ],
      });
    case 'open': {
      if (msg.device !== 'Tone')
        return fail(`no input device "${msg.device}" (unplugged?); input devices: "Tone"`);
      const frames = msg.frameSize;
      let n = 0;
      timers.set(
        msg.stream,
        setInterval(() => {
          for (let k = 0; k < 4; k++) {
            const data = new Float32Array(frames);
            for (let i = 0; i < frames; i++, n++) data[i] = 0.25 * Math.sin((2 * Math.PI * 1000 * n) / 48000);
            post({ op: 'data', stream: msg.stream, data, time: Date.now() });
          }
        }, 20),
      );
      return reply({ sampleRate: 48000, frameSize: frames, deviceName: 'Tone', api: 'alsa' });
    }
    case 'close':
      clearInterval(timers.get(msg.stream));
      timers.delete(msg.stream);
      return reply({});
  }
});
