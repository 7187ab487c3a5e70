import fs, { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM } from '../helpers/chromium.ts';

export { launchBrowser } from '../helpers/chromium.ts';

/**
 * Whether the browser tests run: always when Chromium is installed; without it they fail under CI
 * (REQUIRE_BROWSER=1, set by .ci/run) and are skipped with a message elsewhere.
 */
export function browserAvailable(): boolean {
  if (fs.existsSync(CHROMIUM)) return true;
  if (process.env.REQUIRE_BROWSER === '1') {
    throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing: install the chromium package.`);
  }
  console.warn(
    `Skipping the dashboard browser tests: ${CHROMIUM} is not installed (apt-get install chromium).`,
  );
  return false;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Runs axe-core on the page; fails on any serious or critical violation, naming them. */
export async function expectAccessible(page: Page): Promise<void> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const result = await (
      globalThis as unknown as { axe: { run(): Promise<{ violations: any[] }> } }
    ).axe.run();
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`,
      );
  });
  expect(violations, `axe on ${page.url()}`).toEqual([]);
}

/**
 * Screenshots of the main pages go to docs/screenshots (shown in the README) when DASHBOARD_SCREENSHOTS=1, so an
 * ordinary test run leaves the working tree alone.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.DASHBOARD_SCREENSHOTS !== '1') return;
  const dir = path.resolve(import.meta.dirname, '../../docs/screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}
