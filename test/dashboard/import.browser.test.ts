import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeZip } from '../imports/zip-fixtures.ts';
import { browserAvailable, expectAccessible, screenshot, useDashboardInBrowser } from './browser.ts';

const PASSWORD = 'a long dashboard password';
const LIFELOGS = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../imports/fixtures/limitless/lifelogs',
);

describe.runIf(browserAvailable())('dashboard in Chromium: importing an export', { timeout: 120_000 }, () => {
  const dashboard = useDashboardInBrowser();

  it('signs in, uploads a Limitless ZIP on the Upload page and watches the import finish, naming the bad item', async () => {
    const { page, server } = dashboard;
    const link = /(http:\/\/\S+\/setup\?token=\S+)/.exec(dashboard.banner())?.[1];
    expect(link).toBeDefined();
    await page.goto(link!.replace(/^http:\/\/localhost:\d+/, server.url));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/\/sign-in\?setup=done$/);
    await page.getByLabel('Email').fill('owner@localhost');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/`);

    await page.getByRole('link', { name: 'Upload', exact: true }).click();
    await expectAccessible(page);
    const zip = path.join(dashboard.dataDir, 'limitless-export.zip');
    await writeZip(zip, [
      ...fs
        .readdirSync(LIFELOGS)
        .sort()
        .map((name) => ({ name: `lifelogs/${name}`, data: fs.readFileSync(path.join(LIFELOGS, name)) })),
      { name: 'lifelogs/broken.md', data: Buffer.from([0xff, 0xfe, 0x00, 0xd8]) },
    ]);
    await page.setInputFiles('#export-file', zip);
    await page.getByLabel('Your name (optional)').fill('Sam');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL(/\/upload\/imports\/imp_/);
    await expect(page.getByRole('heading', { level: 1, name: 'Import' }).isVisible()).resolves.toBe(true);
    // The page follows the import by itself until it has finished.
    await page.getByText('Import finished').waitFor({ timeout: 90_000 });
    await expect(page.locator('[data-count="imported"]').textContent()).resolves.toBe('2');
    await expect(page.locator('[data-count="failed"]').textContent()).resolves.toBe('1');
    await expect(page.locator('.import-errors li').first().textContent()).resolves.toContain(
      'lifelogs/broken.md',
    );
    await expectAccessible(page);
    await screenshot(page, 'import');

    await page.getByRole('link', { name: 'Go to your notes' }).click();
    await page.getByText('Weekly planning with Dana').first().waitFor();
  });
});
