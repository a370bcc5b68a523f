// Import rules checked by `npm run lint` (dependency-cruiser; see ARCHITECTURE.md, "Layers"):
// - no import cycles anywhere in electron/ or renderer/;
// - the engine's folders form layers, and a module imports only from its own layer or the ones below it;
// - the renderer imports nothing from electron/ but the protocol and the colormaps.
// The eslint rules in eslint.config.js (no `electron` in the engine, no Node in the protocol…) stay.

// The engine's layers, lowest first. A module belongs to the first layer whose pattern its path matches.
// The base holds what every layer codes against: the protocol, the sample types and errors, and the
// two interfaces (backends/backend.ts, sources/source.ts) that the layers above implement or consume.
const layers = [
  {
    name: 'base',
    path: String.raw`^electron/engine/(protocol/|types\.ts$|errors\.ts$|backends/backend\.ts$|sources/source\.ts$)`,
  },
  { name: 'fft', path: '^electron/engine/fft/' },
  { name: 'dsp', path: '^electron/engine/dsp/' },
  { name: 'io', path: '^electron/engine/io/' },
  { name: 'output', path: '^electron/engine/output/' },
  { name: 'sources', path: '^electron/engine/sources/' },
  { name: 'backends', path: '^electron/engine/backends/' },
  { name: 'pipeline', path: '^electron/engine/pipeline/' },
  { name: 'offline', path: '^electron/engine/offline/' },
  { name: 'record', path: '^electron/engine/record/' },
  { name: 'live', path: '^electron/engine/live/' },
  // The hosts of the engine: every other folder of electron/ (cli, main, preload, an engine host process).
  { name: 'hosts', path: '^electron/(?!engine/)' },
];

// A path of layer i: matches its pattern and none of the layers before it.
const inLayer = (i) => ({ path: layers[i].path, pathNot: layers.slice(0, i).map((l) => l.path) });

const layerRules = layers.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  severity: 'error',
  comment: `${layer.name} imports only from its own layer or lower: ${layers
    .slice(0, i + 1)
    .map((l) => l.name)
    .join(', ')}`,
  from: inLayer(i),
  to: { path: layers.slice(i + 1).map((l) => l.path), pathNot: layers.slice(0, i + 1).map((l) => l.path) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles are not allowed: move what both sides need into a module both import.',
      from: { path: '^(electron|renderer)/' },
      to: { circular: true },
    },
    {
      name: 'protocol-stands-alone',
      severity: 'error',
      comment: 'The protocol is shared with the renderer: it imports nothing else of the engine.',
      from: { path: '^electron/engine/protocol/' },
      to: { path: '^electron/', pathNot: '^electron/engine/protocol/' },
    },
    ...layerRules,
    {
      name: 'renderer-only-protocol',
      severity: 'error',
      comment: 'The renderer imports only electron/engine/protocol and the colormaps from electron/.',
      from: { path: '^renderer/' },
      to: { path: '^electron/', pathNot: '^electron/engine/(protocol/|output/colormaps\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|out)/' },
    // Type-only imports count: a layer must not know a higher layer's types either.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
