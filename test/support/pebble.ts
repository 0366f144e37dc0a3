/**
 * Test support: the pebble ACME server (Debian's pebble) validating DNS-01 through a given DNS server (our
 * primary), with a throw-away CA for its HTTPS, and a runner for the ACME clients (certbot, lego).
 * Debian packages: pebble, openssl. A missing binary makes the test FAIL.
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findBinary, freePort } from '../propagation/knot';
import { waitFor } from './wait-for';

/** a throw-away CA and a certificate for 127.0.0.1 / localhost: pebble serves ACME over HTTPS only */
function makePebbleTls(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=zonekeeper test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  ]);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', file('tls.key'), '-out', file('tls.csr')]);
  writeFileSync(
    file('ext.cnf'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
  );
  openssl([
    'x509',
    '-req',
    '-in',
    file('tls.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
    '-out',
    file('tls.pem'),
  ]);
  return { ca: file('ca.pem'), cert: file('tls.pem'), key: file('tls.key') };
}

/** runs a client to its end with extra environment variables; its output kept for the failure message */
export function runProcess(bin: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', (error) => resolve({ code: -1, output: String(error) }));
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

export interface Pebble {
  /** the ACME directory URL */
  url: string;
  /** the CA of pebble's HTTPS certificate, for the clients (REQUESTS_CA_BUNDLE, LEGO_CA_CERTIFICATES) */
  caFile: string;
  log(): string;
  stop(): void;
}

/** starts pebble in `work` (a temp dir the caller removes), validating through the DNS server on `dnsPort` */
export async function startPebble(work: string, dnsPort: number): Promise<Pebble> {
  const tls = makePebbleTls(work);
  const [acmePort, managementPort, httpPort, tlsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  writeFileSync(
    path.join(work, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  let log = '';
  // NOSLEEP: no random wait before validating; NONCEREJECT=0: pebble otherwise rejects 5% of good nonces
  const pebble: ChildProcess = spawn(
    findBinary('pebble'),
    ['-config', path.join(work, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
    {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  pebble.stdout!.on('data', (chunk) => (log += chunk));
  pebble.stderr!.on('data', (chunk) => (log += chunk));
  await waitFor('pebble listening', async () => (log.includes('Listening on') ? true : undefined), 20_000);
  return { url: `https://127.0.0.1:${acmePort}/dir`, caFile: tls.ca, log: () => log, stop: () => pebble.kill('SIGTERM') };
}
