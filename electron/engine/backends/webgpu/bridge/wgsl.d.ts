// The text of a file imported with `?raw` (Vite's convention; the test's esbuild build does the same).
declare module '*.wgsl?raw' {
  const text: string;
  export default text;
}
