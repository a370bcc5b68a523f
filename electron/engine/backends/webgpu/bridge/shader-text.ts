// The WGSL kernels of the top-level shaders/ folder, embedded in a browser bundle (the page has no file
// system): the bundler (electron-vite's preload build, the tests' esbuild) inlines each file's text, so
// shaders/*.wgsl stays the one source. Importing this module hands them to shaders.ts.

import bluestein from '../../../../../shaders/bluestein.wgsl?raw';
import correlate from '../../../../../shaders/correlate.wgsl?raw';
import fftMixed from '../../../../../shaders/fft_mixed.wgsl?raw';
import fftPow2 from '../../../../../shaders/fft_pow2.wgsl?raw';
import fir from '../../../../../shaders/fir.wgsl?raw';
import real from '../../../../../shaders/real.wgsl?raw';
import samples from '../../../../../shaders/samples.wgsl?raw';
import spectrogram from '../../../../../shaders/spectrogram.wgsl?raw';
import unfused from '../../../../../shaders/unfused.wgsl?raw';
import { provideShaderSources } from '../shaders.js';

provideShaderSources({
  fft_pow2: fftPow2,
  fft_mixed: fftMixed,
  bluestein,
  real,
  samples,
  spectrogram,
  fir,
  correlate,
  unfused,
});
