// The theme: the user's choice (System, Dark, Light, High contrast), kept in localStorage, and the theme it
// resolves to, which follows the system's preferences live while the choice is System.

import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import {
  THEME_STORAGE_KEY,
  applyTheme,
  currentTheme,
  isThemeChoice,
  resolveTheme,
  type SystemPreference,
  type ThemeChoice,
} from '../lib/theme.js';

const QUERIES = {
  dark: '(prefers-color-scheme: dark)',
  moreContrast: '(prefers-contrast: more)',
  forcedColors: '(forced-colors: active)',
} as const;

function media(query: string): MediaQueryList | null {
  return typeof matchMedia === 'function' ? matchMedia(query) : null;
}

function systemPreference(): SystemPreference {
  return {
    dark: media(QUERIES.dark)?.matches ?? true,
    moreContrast: media(QUERIES.moreContrast)?.matches ?? false,
    forcedColors: media(QUERIES.forcedColors)?.matches ?? false,
  };
}

function loadChoice(): ThemeChoice {
  try {
    const v = localStorage.getItem(THEME_STORAGE_KEY);
    return isThemeChoice(v) ? v : 'system';
  } catch {
    return 'system';
  }
}

export const useThemeStore = defineStore('theme', () => {
  const choice = ref<ThemeChoice>(loadChoice());
  const system = ref<SystemPreference>(systemPreference());

  function update(): void {
    const name = resolveTheme(choice.value, system.value);
    if (name !== currentTheme.value || document.documentElement.dataset.theme !== name) applyTheme(name);
  }

  function choose(c: ThemeChoice): void {
    choice.value = c;
    try {
      if (c === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
      else localStorage.setItem(THEME_STORAGE_KEY, c);
    } catch {
      // Storage refused (a private window): the choice holds for this page.
    }
    update();
  }

  for (const q of Object.values(QUERIES))
    media(q)?.addEventListener('change', () => {
      system.value = systemPreference();
      update();
    });
  update();

  return { choice, system, theme: computed(() => currentTheme.value), choose };
});
