// For tests that run the built main process with the app window's real preload (fake.runAppPreload): a
// snippet for mainScript's body giving `page(win)`, which waits for the window's bridge (window.phasor, as
// the preload exposed it) and records what the page hears: the main process's commands (onCommand) and
// the engine's messages; `page.ask(method, params)` sends a request over the engine port and waits for
// its reply. `appWindows()` lists the app's windows (not the hidden WebGPU one).
export const PAGE_HELPERS = `
      const appWindows = () => fake.windows.filter((w) => !w.url?.startsWith('phasor://gpu/'));
      let nextRequest = 1;
      const page = async (win) => {
        await wait(() => win.webContents.exposed?.phasor);
        const bridge = win.webContents.exposed.phasor;
        const commands = [];
        const messages = [];
        bridge.onCommand((c) => commands.push(c));
        bridge.onMessage((m) => messages.push(m));
        const ask = async (method, params = {}) => {
          const id = nextRequest++;
          bridge.send({ type: 'request', id, method, params });
          await wait(() => messages.some((m) => m.type === 'reply' && m.id === id), 20000);
          const r = messages.find((m) => m.type === 'reply' && m.id === id);
          return r ? (r.ok ? { ok: true, result: r.result } : { ok: false, error: r.error.message }) : null;
        };
        return { bridge, commands, messages, ask };
      };
`;
