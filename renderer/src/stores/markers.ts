// Placed markers on a spectrum (up to MAX_MARKERS): where they are, which one is selected, which is the
// reference, and their latest readings. The math is lib/markers.ts; the view that owns the spectrum passes
// its trace in (createMarkersStore gives another view its own set).

import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import {
  MAX_MARKERS,
  nextPeak,
  readMarkers,
  snapToPeak,
  strongestPeak,
  type Marker,
  type MarkerReading,
  type Trace,
} from '../lib/markers.js';

export function createMarkersStore(id: string) {
  return defineStore(id, () => {
    const markers = ref<Marker[]>([]);
    const selected = ref<number | null>(null);
    const reference = ref<number | null>(null);
    const readings = shallowRef<MarkerReading[]>([]);
    let nextId = 1;

    const full = (): boolean => markers.value.length >= MAX_MARKERS;

    /** Places a marker at `frequency` (selected; the first one is the reference), at `time` with `level`
     * when it has its own (a spectrogram's). Null when full. */
    function add(frequency: number, time?: number, level?: number): number | null {
      if (full() || !Number.isFinite(frequency)) return null;
      const id = nextId++;
      markers.value.push({ id, frequency, ...placed(time, level) });
      selected.value = id;
      if (reference.value === null) reference.value = id;
      return id;
    }

    /** Places a marker on the strongest peak of `trace` not marked yet. */
    function addAtPeak(trace: Trace): number | null {
      const f = strongestPeak(
        trace,
        markers.value.map((m) => m.frequency),
      );
      return f === null ? null : add(f);
    }

    function remove(id: number): void {
      markers.value = markers.value.filter((m) => m.id !== id);
      if (selected.value === id) selected.value = markers.value.at(-1)?.id ?? null;
      if (reference.value === id) reference.value = markers.value[0]?.id ?? null;
      readings.value = readings.value.filter((r) => r.id !== id);
    }

    function clear(): void {
      markers.value = [];
      selected.value = null;
      reference.value = null;
      readings.value = [];
    }

    function move(id: number, frequency: number, time?: number, level?: number): void {
      const m = markers.value.find((x) => x.id === id);
      if (!m || !Number.isFinite(frequency)) return;
      m.frequency = frequency;
      if (time !== undefined) Object.assign(m, placed(time, level));
    }

    /** The level of a marker with a time of its own (an unknown one reads the trace). */
    function setLevel(id: number, level: number | undefined): void {
      const m = markers.value.find((x) => x.id === id);
      if (m && m.time !== undefined && m.level !== level) {
        if (level === undefined || !Number.isFinite(level)) delete m.level;
        else m.level = level;
      }
    }

    function select(id: number | null): void {
      selected.value = id;
    }

    function setReference(id: number): void {
      if (markers.value.some((m) => m.id === id)) reference.value = id;
    }

    function placed(time?: number, level?: number): Partial<Marker> {
      if (time === undefined || !Number.isFinite(time)) return {};
      return level !== undefined && Number.isFinite(level) ? { time, level } : { time };
    }

    const current = (): Marker | undefined => markers.value.find((m) => m.id === selected.value);

    /** Moves the selected marker to the highest level near it. */
    function snapSelected(trace: Trace): void {
      const m = current();
      if (m) m.frequency = snapToPeak(trace, m.frequency);
    }

    /** Moves the selected marker to the next lower peak (Next Peak). */
    function nextPeakSelected(trace: Trace): void {
      const m = current();
      if (!m) return;
      const f = nextPeak(trace, m.frequency);
      if (f !== null) m.frequency = f;
    }

    /** Reads every marker's level on `trace` (the table shows these). */
    function update(trace: Trace): void {
      readings.value = readMarkers(markers.value, trace, reference.value);
    }

    return {
      markers,
      selected,
      reference,
      readings,
      add,
      addAtPeak,
      remove,
      clear,
      move,
      setLevel,
      select,
      setReference,
      snapSelected,
      nextPeakSelected,
      update,
    };
  });
}

/** The Live view's markers. */
export const useMarkersStore = createMarkersStore('markers');
/** The File view's markers (on its spectrum pane and spectrogram). */
export const useFileMarkersStore = createMarkersStore('fileMarkers');
export type MarkersStore = ReturnType<typeof useMarkersStore>;
