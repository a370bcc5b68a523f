// The app's views. Each is one entry: the switcher and the hash route (#/live) come from this list, so
// the File, Filter, Correlation and Benchmark views of issue 5 are added here and nowhere else.

import type { Component } from 'vue';
import BenchView from './views/BenchView.vue';
import CorrelationView from './views/CorrelationView.vue';
import FileView from './views/FileView.vue';
import FilterView from './views/FilterView.vue';
import LiveView from './views/LiveView.vue';

export interface ViewEntry {
  id: string;
  label: string;
  /** Shown as the tab's tooltip. */
  title: string;
  component: Component;
}

export const VIEWS: ViewEntry[] = [
  { id: 'live', label: 'Live', title: 'Live spectrum and waterfall of a source', component: LiveView },
  { id: 'file', label: 'File', title: 'Spectrogram of a recording: zoom, select, play', component: FileView },
  {
    id: 'filter',
    label: 'Filter',
    title: 'Design a FIR filter and apply it to the open file',
    component: FilterView,
  },
  {
    id: 'correlate',
    label: 'Correlation',
    title: 'Find a template in a long recording',
    component: CorrelationView,
  },
  { id: 'bench', label: 'Benchmark', title: 'Compare the backends on this machine', component: BenchView },
];

/** The view a location hash names ("#/live"), else the first view. */
export function viewForHash(hash: string, views: ViewEntry[] = VIEWS): ViewEntry {
  const id = hash.replace(/^#\/?/, '');
  return views.find((v) => v.id === id) ?? views[0];
}
