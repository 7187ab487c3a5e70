import fs, { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/main.ts';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.ts';

export { launchBrowser };

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

export interface DashboardInBrowser {
  server: RunningServer;
  dataDir: string;
  page: Page;
  /** What the server has printed, the set-up link of the first start among it. */
  banner(): string;
}

/**
 * The whole service started in this process on a fresh DATA_DIR with `settings` added (read when the suite
 * starts), and a Chromium page to drive its dashboard, for the enclosing describe block: what the browser
 * journeys start from. Browser, server and folder are gone after the block.
 */
export function useDashboardInBrowser(
  settings: () => Record<string, string> = () => ({}),
): DashboardInBrowser {
  let banner = '';
  let closeBrowser: (() => Promise<void>) | undefined;
  const dashboard = { banner: () => banner } as DashboardInBrowser;
  beforeAll(async () => {
    dashboard.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-dashboard-'));
    const config = loadConfig({
      DATA_DIR: dashboard.dataDir,
      // The builtin embedder's cache is built once per machine, not per run.
      MODELS_DIR: path.join(os.tmpdir(), 'minutes-test-models'),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      WORKER_POLL_MS: '50',
      ...settings(),
    });
    const out = new PassThrough();
    out.on('data', (chunk) => {
      banner += String(chunk);
    });
    dashboard.server = await startServer(config, { out, drainMs: 1000 });
    const browser = await launchBrowser();
    closeBrowser = browser.close;
    dashboard.page = await browser.context.newPage();
  }, 120_000);
  afterAll(async () => {
    await closeBrowser?.();
    await dashboard.server?.stop();
    if (dashboard.dataDir) fs.rmSync(dashboard.dataDir, { recursive: true, force: true });
  });
  return dashboard;
}
