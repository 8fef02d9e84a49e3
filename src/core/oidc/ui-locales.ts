/**
 * The languages the sign-in, sign-up and consent pages are written in. Only English today: the
 * pages have no other translation. `ui_locales` (OIDC Core 3.1.2.1, space-separated BCP 47 tags
 * in order of preference) picks the first of these that a tag names (`en`, `en-GB` and `EN-us`
 * all pick `en`); when none does, the pages are in the first supported one. Never an error.
 */
export const UI_LOCALES_SUPPORTED = ['en'] as const;
export type UiLocale = (typeof UI_LOCALES_SUPPORTED)[number];

/**
 * The first of `supported` that a tag of `uiLocales` (space-separated BCP 47, in order of preference) names, or null.
 */
export function firstSupportedLocale<L extends string>(
  uiLocales: string | undefined,
  supported: readonly L[],
): L | null {
  for (const tag of (uiLocales ?? '').split(' ').filter(Boolean)) {
    const lower = tag.toLowerCase();
    const match = supported.find((locale) => lower === locale || lower.startsWith(`${locale}-`));
    if (match) return match;
  }
  return null;
}

export function pickUiLocale(uiLocales: string | undefined): UiLocale {
  return firstSupportedLocale(uiLocales, UI_LOCALES_SUPPORTED) ?? UI_LOCALES_SUPPORTED[0];
}
