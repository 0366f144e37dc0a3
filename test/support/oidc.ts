import { ChildProcess, spawn } from 'node:child_process';
import type { BrowserContext, Page } from 'playwright-core';
import path from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

export const OIDC_CLIENT_ID = 'zonekeeper';
export const OIDC_CLIENT_SECRET = 'zonekeeper-secret-0123456789abcdef0123456789abcdef';
export const OTHER_CLIENT_ID = 'other-client';

export interface OidcProvider {
  issuer: string;
  /** sets the life of the authorization codes issued from now on */
  setCodeSeconds(seconds: number): Promise<void>;
  /** sets the life of the device codes (RFC 8628) issued from now on */
  setDeviceCodeSeconds(seconds: number): Promise<void>;
  /** sets the `groups` claim of a login (released under the `groups` scope): an array, a string, null for none */
  setGroups(login: string, groups: string[] | string | null): Promise<void>;
  stop(): Promise<void>;
}

/** a loopback port for the provider, chosen before the service starts (its settings name the issuer) */
export const providerPort = freePort;

/** the test's OpenID provider (test/support/oidc-provider.mjs) in a process of its own, on a loopback port */
export async function startOidcProvider(port: number, redirectUri: string): Promise<OidcProvider> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc-provider.mjs'), String(port), redirectUri], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor('the OpenID provider listening', () => (output.includes('listening') ? true : undefined));
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    async setCodeSeconds(seconds) {
      const res = await fetch(`${issuer}/test/code-ttl?seconds=${seconds}`);
      if (!res.ok) throw new Error(`code ttl: ${res.status}`);
    },
    async setDeviceCodeSeconds(seconds) {
      const res = await fetch(`${issuer}/test/device-code-ttl?seconds=${seconds}`);
      if (!res.ok) throw new Error(`device code ttl: ${res.status}`);
    },
    async setGroups(login, groups) {
      const res = await fetch(`${issuer}/test/groups`, { method: 'POST', body: JSON.stringify({ login, groups }) });
      if (!res.ok) throw new Error(`groups: ${res.status}`);
    },
    async stop() {
      // stopped already: it exited, or a signal ended it (exitCode stays null then)
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/** the provider's development login form (any login; the login is the address) and its consent, in the page */
export async function atProviderLogin(page: Page, login: string): Promise<void> {
  const form = page.locator('input[name="login"]');
  if (await form.isVisible().catch(() => false)) {
    await form.fill(login);
    await page.locator('input[name="password"]').fill('any password');
    await page.locator('button[type="submit"]').click();
  }
  await page.waitForLoadState();
  const consent = page.locator('button.login-submit', { hasText: 'Continue' });
  if (await consent.isVisible().catch(() => false)) await consent.click();
}

/**
 * Holds the page's requests to the service's OIDC callback `callbackUrl` (Chromium's Fetch domain over CDP: the
 * provider's redirect back is the last hop of a redirect chain, which Playwright's routes do not see);
 * `onCallback` decides each: a URL to continue to (changed or not), or undefined to answer it in the browser and
 * stop.
 */
export async function holdOidcCallbacks(
  context: BrowserContext,
  page: Page,
  callbackUrl: string,
  onCallback: (url: URL) => Promise<URL | undefined>,
): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${callbackUrl}*`, requestStage: 'Request' }] });
  cdp.on('Fetch.requestPaused', (event) => {
    void (async () => {
      const url = await onCallback(new URL(event.request.url));
      if (url) await cdp.send('Fetch.continueRequest', { requestId: event.requestId, url: url.href });
      else
        await cdp.send('Fetch.fulfillRequest', {
          requestId: event.requestId,
          responseCode: 200,
          body: Buffer.from('held').toString('base64'),
        });
    })();
  });
}
