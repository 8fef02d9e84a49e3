import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';

// An accessibility scan of a page as it is on screen, with axe-core (WCAG 2.1 A and AA rules and
// axe's best practices). The whole report goes to test-artifacts/a11y/<name>.json; the tests assert
// on the serious and critical violations.

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const REPORTS = path.resolve('test-artifacts/a11y');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * The violations axe finds on `page` now, serious and critical ones only; the full report is written as `name`.json.
 */
export async function seriousViolations(page: Page, name: string): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE);
  const result = (await page.evaluate('window.axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
  };
  await mkdir(REPORTS, { recursive: true });
  await writeFile(path.join(REPORTS, `${name}.json`), JSON.stringify(result.violations, null, 2));
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(' ')),
    }));
}
