import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// WCAG 2.1 AA for the design system's text: every pair of a text token on the backgrounds it is
// used on has a contrast ratio of at least 4.5:1, in the light and in the dark theme.

const css = readFileSync(new URL('./tokens.css', import.meta.url), 'utf8');
const darkStart = css.indexOf('@media (prefers-color-scheme: dark)');
const tokensOf = (block: string) =>
  Object.fromEntries([...block.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6});/gi)].map((match) => [match[1]!, match[2]!]));
const light = tokensOf(css.slice(0, darkStart));
const dark = { ...light, ...tokensOf(css.slice(darkStart)) };

/** Relative luminance of an sRGB colour (WCAG 2.1). */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

/** Text token, background token: how components.css pairs them. */
const PAIRS: [string, string][] = [
  ['text', 'bg'],
  ['text', 'surface'],
  ['text', 'surface-muted'],
  ['text-muted', 'surface'],
  ['text-muted', 'bg'],
  ['primary', 'surface'],
  ['primary', 'bg'],
  ['primary-text', 'primary'],
  ['danger-text', 'danger-bg'],
  ['success', 'success-bg'],
  ['notice-text', 'notice-bg'],
  ['text', 'warning-bg'],
  ['surface', 'danger'],
];

describe('the design tokens meet WCAG 2.1 AA contrast', () => {
  it.each([
    ['light', light],
    ['dark', dark],
  ] as const)('%s theme', (_theme, tokens) => {
    const failing = PAIRS.map(([fg, bg]) => [fg, bg, contrast(tokens[fg]!, tokens[bg]!)] as const).filter(
      ([, , ratio]) => ratio < 4.5,
    );
    expect(failing).toEqual([]);
  });

  it('the check itself: black on white is 21:1, a pale grey on white fails', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#aaaaaa', '#ffffff')).toBeLessThan(4.5);
  });
});
