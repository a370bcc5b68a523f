// Imported first by main.ts, before any library runs its module code. A Chromium started in the POSIX
// locale (LANG=C, e.g. a headless shell on a server) can report navigator.language as 'en-US@posix',
// which Intl refuses ("Invalid language tag"); uPlot builds an Intl.NumberFormat from navigator.language
// when it loads, so the whole page would stop before it draws anything. Such a tag is replaced by the
// nearest one Intl accepts (the part before '@', else en-US); a valid one is left alone.

/** The tag itself when Intl accepts it, else the part before '@' when that is accepted, else en-US. */
export function usableLanguageTag(tag: string): string {
  for (const candidate of [tag, tag.split('@')[0]]) {
    try {
      if (candidate && Intl.getCanonicalLocales(candidate).length === 1) return candidate;
    } catch {
      // not a BCP 47 tag: try the next
    }
  }
  return 'en-US';
}

if (typeof navigator !== 'undefined') {
  const language = usableLanguageTag(navigator.language);
  if (language !== navigator.language) {
    const languages = [language, ...navigator.languages.map(usableLanguageTag).filter((l) => l !== language)];
    Object.defineProperty(navigator, 'language', { value: language, configurable: true });
    Object.defineProperty(navigator, 'languages', { value: Object.freeze(languages), configurable: true });
  }
}
