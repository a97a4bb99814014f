/**
 * The console tests' browser: Debian's Chromium, headless, through playwright-core, with a fresh
 * profile and the flags this machine's closed network needs (no background connections). Every
 * dialog a page opens is recorded and dismissed (a test can assert that none opened).
 */
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Messages of the dialogs pages opened (each dismissed). */
  dialogs: string[];
  close(): Promise<void>;
}

export async function launchConsoleBrowser(): Promise<ConsoleBrowser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run tools/ensure-test-deps.sh (apt-get install chromium)`);
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'samsa-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(15_000);
  const dialogs: string[] = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
  return {
    context, page, dialogs,
    async close() {
      await context.close().catch(() => undefined);
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
