import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Browser, BrowserContext, CDPSession, chromium, Page } from 'playwright-core';
import { buildOnce } from './build';

/** Test support for the web console (docs/console.md): its build, Debian's Chromium, and axe-core. */
export const ROOT = path.join(__dirname, '..', '..');
export const CONSOLE_ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');

/** the console as `npm run build` builds it (dist/console), from the sources of this checkout (one build a run) */
export function buildConsole(): void {
  buildOnce();
}

/** Debian's Chromium, headless; the machine has no internet: no background networking or component updates */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A browser context of its own (no cookie) with a virtual authenticator on its page (CDP WebAuthn domain: a
 * resident key, user verification), as a person's new device; bypassCSP: axe-core is injected as an inline script,
 * which the console's own CSP (rightly) refuses
 */
export async function passkeyBrowser(
  browser: Browser,
): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return { context, page, cdp, authenticatorId };
}

/** a GraphQL request from the page, with its session cookie and the CSRF header, as the console makes it */
export function gqlFromPage(page: Page, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  return page.evaluate(
    `fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-requested-with': 'zonekeeper-console' },
       body: ${JSON.stringify(JSON.stringify({ query, variables }))} }).then((r) => r.json())`,
  );
}

/** a REST request from the page, as the console makes it (same origin, its session cookie, X-Requested-With) */
export function requestFromPage(page: Page, method: string, to: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? '' : `, body: ${JSON.stringify(JSON.stringify(body))}`;
  return page.evaluate(
    `fetch(${JSON.stringify(to)}, { method: ${JSON.stringify(method)},
       headers: { 'content-type': 'application/json', 'x-requested-with': 'zonekeeper-console' }${payload} })
       .then(async (r) => ({ status: r.status, body: await r.json().catch(() => null) }))`,
  );
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's rules (WCAG 2 A/AA and best practices) on the page as it is; the serious and critical violations
 * are returned (the page's context needs bypassCSP: axe is injected as an inline script, which the console's CSP
 * refuses)
 */
export async function severeAccessibilityViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  // a string runs in the page (this project's TypeScript has no DOM types)
  const violations = await page.evaluate<{ id: string; impact: string; nodes: string[] }[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * The console's screen checked as people meet it: axe (0 serious or critical) at 1280 px and at 390 px, nothing
 * sticking out sideways at 390 px, a screenshot of each in `artifacts`; the viewport put back after
 */
export async function expectAccessibleAtBothWidths(page: Page, artifacts: string, screen: string): Promise<void> {
  const severe = async () => ({ screen, severe: await severeAccessibilityViolations(page) });
  if ((await severe()).severe.length) throw new Error(`axe at 1280 px: ${JSON.stringify(await severe())}`);
  await page.screenshot({ path: path.join(artifacts, `${screen}-1280.png`), fullPage: true });
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(100);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  if (overflow !== 0) throw new Error(`${screen} sticks out ${overflow} px sideways at 390 px`);
  const narrow = await severe();
  if (narrow.severe.length) throw new Error(`axe at 390 px: ${JSON.stringify(narrow)}`);
  await page.screenshot({ path: path.join(artifacts, `${screen}-390.png`), fullPage: true });
  await page.setViewportSize(size);
  // after the viewport's changes, ask headless Chromium to show the page again (as console.test.ts does)
  await page.bringToFront();
}
