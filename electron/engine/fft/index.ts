// The FFT of the CPU backend: plans cached by size, float64 inside, any n ≥ 1.
//
//   const plan = getFftPlan(n);            // complex, interleaved (re, im)
//   plan.forward(x, X); plan.inverse(X, x); // inverse scaled by 1/n (NumPy)
//   const rplan = getRealFftPlan(n);       // n reals ↔ floor(n/2)+1 bins (numpy.fft.rfft/irfft)
//
// See plan.ts (mixed radix / Bluestein) and real.ts.
export {
  clearFftPlanCache,
  createFftPlan,
  getFftPlan,
  type FftInput,
  type FftOutput,
  type FftPlan,
} from './plan.js';
export { getRealFftPlan, type RealFftPlan } from './real.js';
