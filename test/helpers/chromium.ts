import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium; .ci/run installs it. */
export const CHROMIUM = '/usr/bin/chromium';

/** The flags every test browser runs with: no sandbox (containers), no GPU, no calls home. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];

/**
 * Headless Chromium with a fresh profile directory (a persistent context: one browser, one profile); close()
 * removes the profile. CSP is bypassed only so that axe-core can be injected into the pages.
 */
export async function launchBrowser(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'minutes-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    bypassCSP: true,
    viewport: { width: 1200, height: 800 },
    args: [...CHROMIUM_ARGS, '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
