// A real browser for the console's end-to-end tests: Debian's chromium (installed by .ci/run with apt-get; never
// downloaded) driven by playwright-core, one headless page per test file in a throwaway profile. A script error or
// a CSP violation ("Refused to …") is collected in `errors` for the test to assert empty; answers the page expects
// (401 before sign-in, a refused form) show only as "Failed to load resource" and are not errors.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

export interface BrowserPage {
  /** The page (set before the file's tests run). */
  readonly page: Page;
  readonly errors: string[];
}

/**
 * Open chromium at 1280 × 860 before the file's tests, close it after; `what` names the suite when chromium is missing.
 */
export function useBrowser(what: string): BrowserPage {
  if (!HAVE_CHROMIUM)
    console.warn(`${what} skipped: ${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`);
  let profile = '';
  let browser: BrowserContext | undefined;
  let page: Page | undefined;
  const errors: string[] = [];
  beforeAll(async () => {
    if (!HAVE_CHROMIUM) return;
    profile = mkdtempSync(join(tmpdir(), 'tollway-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1280, height: 860 },
      acceptDownloads: true,
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on(
      'console',
      (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
    );
  });
  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });
  return {
    get page() {
      if (!page) throw new Error('the browser page is opened in beforeAll');
      return page;
    },
    errors,
  };
}
