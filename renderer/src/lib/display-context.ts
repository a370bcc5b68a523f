// What LiveDisplay provides to its plots.
import type { InjectionKey } from 'vue';
import type { FrameLoop } from './frame-loop.js';

export const FRAME_LOOP: InjectionKey<FrameLoop> = Symbol('phasor.frameLoop');
