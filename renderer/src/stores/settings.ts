// What the user chose (analysis, display, source), kept in localStorage between runs. The schema and its
// versioned migration live in lib/settings-schema.ts; this store only holds and saves them.

import { defineStore } from 'pinia';
import { reactive, toRaw, watch } from 'vue';
import type { SourceField } from '../../../electron/engine/protocol/messages.js';
import {
  SETTINGS_KEY,
  defaultSettings,
  parseStoredSettings,
  serializeSettings,
  type ParamValue,
  type Settings,
} from '../lib/settings-schema.js';

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled by the browser
  }
}

/** A field's starting value: its default, else the first option, else an empty value of its type. */
export function fieldDefault(field: SourceField): ParamValue {
  if (field.default !== undefined) return field.default;
  if (field.type === 'select' && field.options?.length) return field.options[0].value;
  if (field.type === 'number') return field.min ?? 0;
  if (field.type === 'boolean') return false;
  return '';
}

/** The value a stored parameter may take for this field, or undefined when it no longer fits. */
export function coerceParam(field: SourceField, value: unknown): ParamValue | undefined {
  switch (field.type) {
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
      if (field.min !== undefined && value < field.min) return undefined;
      if (field.max !== undefined && value > field.max) return undefined;
      return value;
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'select':
      return field.options?.some((o) => o.value === value) ? (value as string | number) : undefined;
    default:
      return typeof value === 'string' ? value : undefined;
  }
}

export const useSettingsStore = defineStore('settings', () => {
  const store = storage();
  const loaded = parseStoredSettings(store?.getItem(SETTINGS_KEY) ?? null);
  for (const note of loaded.notes) console.warn(`phasor settings: ${note}`);
  const s = reactive<Settings>(loaded.settings);

  function save(): void {
    try {
      store?.setItem(SETTINGS_KEY, serializeSettings(toRaw(s)));
    } catch {
      // Quota or privacy mode: settings then last for this run only.
    }
  }
  watch(s, save, { deep: true, flush: 'sync' });

  function setParam(kind: string, name: string, value: ParamValue): void {
    if (!s.sourceParams[kind]) s.sourceParams[kind] = {};
    s.sourceParams[kind][name] = value;
  }

  function resetAll(): void {
    Object.assign(s, defaultSettings());
  }

  return { s, setParam, resetAll };
});
