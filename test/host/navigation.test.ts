// Where the desktop app's pages may go, run through the built main process against the stand-in for
// Electron: navigations, redirects and frame navigations of every webContents (the app window, the hidden
// WebGPU window, any other one) stay on the app's own pages, and a page's window.open reaches the browser
// only for the hosts the app links to, https only, after the user said yes.
import { describe, expect, it } from 'vitest';
import { mainScript, runWithFakeElectron, useAppBuild } from './app-build.js';

const app = useAppBuild('navigation');

/** Runs `body` in the built main process once its window is up; `res` is printed as JSON. */
function check(file: string, body: string): Record<string, unknown> {
  const script = mainScript(
    app.out,
    `
      await wait(() => fake.windows.length > 0 && fake.windows[0].url !== null);
      const res = {};
      const win = fake.windows[0];
      const wc = win.webContents;
${body}
      process.stdout.write(JSON.stringify(res));
      process.exit(0);
    `,
  );
  const r = runWithFakeElectron(app.out, file, script);
  expect(r.stderr).toBe('');
  expect(r.stdout, `the check printed nothing (status ${r.status}, signal ${r.signal})`).not.toBe('');
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** Where a page might try to go, and whether each is the app's own page. */
const elsewhere = [
  'https://evil.example/',
  'http://sigmf.org/',
  'file:///etc/passwd',
  'phasor://elsewhere/index.html',
  'phasor://gpu/index.html',
  'data:text/html,<h1>hi</h1>',
];

describe('navigation of the app’s webContents', () => {
  it('keeps the app window on its own pages: navigations, frames and redirects', () => {
    expect(app.result().status).toBe(0);
    const res = check(
      'navigation-main.mjs',
      `
      const targets = ${JSON.stringify(elsewhere)};
      res.navigate = targets.map((u) => wc.navigate(u));
      res.frame = targets.map((u) => wc.navigate(u, { mainFrame: false }));
      res.redirect = targets.map((u) => wc.redirect(u));
      res.url = wc.getURL();
      // its own pages stay reachable (a reload, an anchor, a redirect inside the app)
      res.own = [wc.navigate('phasor://app/index.html#spectrum'), wc.navigate('phasor://app/index.html', { mainFrame: false }), wc.redirect('phasor://app/index.html')];
      `,
    );
    const no = elsewhere.map(() => false);
    expect(res.navigate).toEqual(no);
    expect(res.frame).toEqual(no);
    expect(res.redirect).toEqual(no);
    expect(res.url).toBe('phasor://app/index.html');
    expect(res.own).toEqual([true, true, true]);
  });

  it('keeps the hidden WebGPU window and any other webContents on their own pages, and opens no window from them', () => {
    expect(app.result().status).toBe(0);
    const res = check(
      'navigation-others.mjs',
      `
      // The engine host's hello lists the backends: that opens the hidden WebGPU window.
      const frame = { url: 'phasor://app/index.html', parent: null };
      fake.ipc.get('phasor:connect')({ sender: wc, senderFrame: frame }, { protocol: 1 });
      const port = wc.sent[0].transfer[0];
      port.start();
      port.postMessage({ type: 'request', id: 1, method: 'hello', params: {} });
      await wait(() => port.received.some((m) => m.type === 'reply' && m.id === 1));
      const gpu = fake.windows.find((w) => w.url === 'phasor://gpu/index.html');
      res.gpuFound = gpu !== undefined;
      res.webPreferences = fake.windows.map((w) => {
        const p = w.options.webPreferences;
        return { contextIsolation: p.contextIsolation, sandbox: p.sandbox, nodeIntegration: p.nodeIntegration };
      });
      const g = gpu.webContents;
      const targets = [...${JSON.stringify(elsewhere)}.filter((u) => !u.startsWith('phasor://gpu')), 'phasor://app/index.html'];
      res.gpu = {
        navigate: targets.map((u) => g.navigate(u)),
        frame: targets.map((u) => g.navigate(u, { mainFrame: false })),
        redirect: targets.map((u) => g.redirect(u)),
        own: g.redirect('phasor://gpu/index.html'),
        url: g.getURL(),
        open: g.openWindow('https://sigmf.org/'),
      };
      // A webContents the app did not make itself (a devtools or a future window): the same guard.
      const { BrowserWindow } = await import('electron');
      const before = fake.windows.length;
      const other = new BrowserWindow({ show: false }).webContents;
      res.other = {
        navigate: targets.map((u) => other.navigate(u)),
        redirect: other.redirect('https://evil.example/'),
        open: other.openWindow('https://evil.example/'),
      };
      await new Promise((r) => setImmediate(r));
      res.newWindows = fake.windows.length - before - 1;
      res.opened = fake.opened;
      res.asked = fake.dialogs.filter((d) => d.kind === 'message').length;
      `,
    );
    expect(res.gpuFound).toBe(true);
    // every window the app made is isolated and sandboxed, without Node
    expect(res.webPreferences).toEqual([
      { contextIsolation: true, sandbox: true, nodeIntegration: false },
      { contextIsolation: true, sandbox: true, nodeIntegration: false },
    ]);
    const no = [...elsewhere.filter((u) => !u.startsWith('phasor://gpu')), 'app'].map(() => false);
    expect(res.gpu).toEqual({
      navigate: no,
      frame: no,
      redirect: no,
      own: true,
      url: 'phasor://gpu/index.html',
      open: 'deny',
    });
    // the app's own page is the one place a webContents it did not make may go
    expect(res.other).toEqual({
      navigate: [...no.slice(0, -1), true],
      redirect: false,
      open: 'deny',
    });
    expect(res.newWindows).toBe(0);
    expect(res.opened).toEqual([]);
    expect(res.asked).toBe(0);
  });
});

describe('links the app window opens in the browser', () => {
  it('opens only https links to the hosts the app links to, after asking, and never a window', () => {
    expect(app.result().status).toBe(0);
    const res = check(
      'navigation-links.mjs',
      `
      const refused = [
        'https://example.com/docs',
        'http://sigmf.org/',
        'https://sigmf.org.evil.example/',
        'https://evil.example/?https://sigmf.org/',
        'https://user:pw@sigmf.org/',
        'https://sigmf.org:8443/',
        'javascript:alert(1)',
        'file:///etc/passwd',
        'mailto:someone@example.com',
        'phasor://app/index.html',
        'not a url',
      ];
      res.refused = refused.map((u) => wc.openWindow(u));
      // the user says no, then yes
      fake.messageBoxAnswer = (o) => o.cancelId;
      res.declined = wc.openWindow('https://sigmf.org/#declined');
      await wait(() => fake.dialogs.length >= 1);
      fake.messageBoxAnswer = (o) => o.buttons.findIndex((b) => /open/i.test(b));
      res.accepted = wc.openWindow('https://sigmf.org/');
      await wait(() => fake.opened.length > 0);
      res.opened = fake.opened;
      res.asked = fake.dialogs.map((d) => ({ kind: d.kind, window: d.window, text: d.options.message + ' ' + (d.options.detail ?? ''), cancelId: d.options.cancelId, defaultId: d.options.defaultId }));
      res.windowId = wc.id;
      res.windows = fake.windows.length;
      `,
    );
    expect(res.refused).toEqual(Array(11).fill('deny'));
    expect(res.declined).toBe('deny');
    expect(res.accepted).toBe('deny');
    // asked twice, modal to the window, naming the link; "cancel" is the default
    expect(res.asked).toEqual([
      {
        kind: 'message',
        window: res.windowId,
        text: expect.stringContaining('https://sigmf.org/#declined'),
        cancelId: expect.any(Number),
        defaultId: expect.any(Number),
      },
      {
        kind: 'message',
        window: res.windowId,
        text: expect.stringContaining('https://sigmf.org/'),
        cancelId: expect.any(Number),
        defaultId: expect.any(Number),
      },
    ]);
    const asked = res.asked as Array<{ cancelId: number; defaultId: number }>;
    expect(asked[0].defaultId).toBe(asked[0].cancelId);
    // only the accepted one reached the browser
    expect(res.opened).toEqual(['https://sigmf.org/']);
    expect(res.windows).toBe(1);
  });
});
