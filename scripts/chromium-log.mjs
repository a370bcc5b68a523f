// Chromium (inside Electron, or the browser web mode opens) writes its internal log to stderr: D-Bus,
// GPU process and zygote lines nobody can act on, dozens at every start. This filter keeps them off the
// terminal, counts them and remembers the last error, so that a launcher that fails can say why in one
// line. Everything else (the app's own output) passes through unchanged. PHASOR_DEBUG=1 passes it all.
//
//   const f = new ChromiumLogFilter((line) => process.stderr.write(line));
//   child.stderr.on('data', (d) => f.write(d)); child.on('exit', () => { f.end(); say(f.reason()); });

/** `[pid:tid:MMDD/HHMMSS.micros:LEVEL:file.cc(:line)] text`, Chromium's LOG() prefix. */
const LOG_LINE = /^\[\d+:\d+:\d{4}\/\d{6}\.\d+:(VERBOSE\d*|INFO|WARNING|ERROR|FATAL):[^\]]*\] ?(.*)$/;
/** Debian's `/usr/bin/chromium` is a shell script whose own `[` test complains on some machines. */
const WRAPPER_LINE = /^\/\S*chrom\S*: \d+: /;

/** Errors that have a cause a person can fix, and that cause in words. */
const CAUSES = [
  [
    /Missing X server or \$DISPLAY/,
    'no display to open a window on (run it in a desktop session, or under xvfb-run)',
  ],
  [/cannot open display/i, 'no display to open a window on (run it in a desktop session, or under xvfb-run)'],
  [/Running as root without --no-sandbox/, 'it cannot run as root without --no-sandbox'],
];

export class ChromiumLogFilter {
  /** Lines kept off the terminal. */
  hidden = 0;
  /** The text of the last ERROR or FATAL line kept off the terminal. */
  lastError = '';
  #cause = '';
  #partial = '';

  /** `out` receives what passes, a line at a time with its newline; `debug` passes everything. */
  constructor(out, { debug = !!process.env.PHASOR_DEBUG } = {}) {
    this.out = out;
    this.debug = debug;
  }

  write(chunk) {
    const text = this.#partial + chunk.toString();
    const lines = text.split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) this.#line(line, '\n');
  }

  /** Flushes a last line without a newline. */
  end() {
    if (this.#partial) this.#line(this.#partial, '');
    this.#partial = '';
  }

  #line(line, eol) {
    const bare = line.replace(/\r$/, '');
    const m = LOG_LINE.exec(bare);
    if (this.debug || (!m && !WRAPPER_LINE.test(bare))) {
      this.out(line + eol);
      return;
    }
    this.hidden++;
    if (m && (m[1] === 'ERROR' || m[1] === 'FATAL')) {
      this.lastError = m[2].trim();
      for (const [re, cause] of CAUSES) if (!this.#cause && re.test(m[2])) this.#cause = cause;
    }
  }

  /** Why the program failed, in words, from what it logged ('' when it logged no error). */
  reason() {
    return this.#cause || this.lastError;
  }

  /** A note on what was hidden, for the end of a failure's line ('' when nothing was). */
  note() {
    return this.hidden > 0 ? `PHASOR_DEBUG=1 shows Chromium's ${this.hidden} log lines` : '';
  }
}
