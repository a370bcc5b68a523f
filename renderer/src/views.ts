// The app's views. Each is one entry: the switcher and the hash route (#/live) come from this list, so
// the File, Filter, Correlation and Benchmark views of issue 5 are added here and nowhere else.

import type { Component } from 'vue';
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
];

/** The view a location hash names ("#/live"), else the first view. */
export function viewForHash(hash: string, views: ViewEntry[] = VIEWS): ViewEntry {
  const id = hash.replace(/^#\/?/, '');
  return views.find((v) => v.id === id) ?? views[0];
}
