import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/** Test support for the web console (docs/console.md): its build, Debian's Chromium, and axe-core. */
export const ROOT = path.join(__dirname, '..', '..');
export const CONSOLE_ARTIFACTS = path.join(ROOT, 'test-artifacts', 'console');

/** the console as `npm run build` builds it (dist/console), from the sources of this checkout */
export function buildConsole(): void {
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'console/vite.config.mjs'],
    {
      cwd: ROOT,
      stdio: 'pipe',
    },
  );
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
