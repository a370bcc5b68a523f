// Renderer entry: picks the transport (the desktop bridge, or a WebSocket to `phasor serve`), attaches
// it to the stores, publishes the measurement hooks and mounts the app.

// First: it repairs navigator.language before libraries read it when they load.
import './lib/locale-guard.js';
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { hooks } from './lib/hooks.js';
import { useConnectionStore } from './stores/connection.js';
import { useThemeStore } from './stores/theme.js';
import { PhasorConnection } from './transport/connection.js';
import { WebSocketTransport, webSocketUrl } from './transport/websocket.js';
import './styles.css';

const transport = window.phasor ?? new WebSocketTransport(webSocketUrl(window.location.href));
const connection = new PhasorConnection(transport, {
  onProtocolError: (m) => console.warn(`phasor: dropped a message from the engine: ${m}`),
});

window.__phasor = hooks;

const app = createApp(App);
app.use(createPinia());
// The theme goes on the page before the first render, so nothing draws in the wrong colours.
useThemeStore();
app.mount('#app');
void useConnectionStore().attach(connection);
