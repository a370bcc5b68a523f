import { describe, expect, it } from 'vitest';
import { usableLanguageTag } from '../../renderer/src/lib/locale-guard.js';

describe('usableLanguageTag', () => {
  it('keeps tags Intl accepts', () => {
    expect(usableLanguageTag('de-DE')).toBe('de-DE');
    expect(usableLanguageTag('en-US')).toBe('en-US');
  });
  it('repairs the POSIX locale tag Chromium reports under LANG=C, which Intl refuses', () => {
    expect(() => new Intl.NumberFormat('en-US@posix')).toThrow(RangeError);
    expect(usableLanguageTag('en-US@posix')).toBe('en-US');
    expect(usableLanguageTag('fr-FR@euro')).toBe('fr-FR');
    expect(() => new Intl.NumberFormat(usableLanguageTag('en-US@posix'))).not.toThrow();
  });
  it('falls back to en-US for what cannot be repaired', () => {
    expect(usableLanguageTag('')).toBe('en-US');
    expect(usableLanguageTag('@@')).toBe('en-US');
  });
});
