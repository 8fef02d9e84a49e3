import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable) console.info(`skipping browser tests: no Chromium at ${CHROMIUM} (apt-get install chromium)`);

/**
 * Debian's Chromium, headless, with the flags this machine needs (no background networking), plus `extraArgs` (e.g. a
 * fake camera).
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
    // Playwright gives every launch a fresh, empty profile of its own.
  });
}
