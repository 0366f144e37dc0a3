/**
 * Steering's probes (docs/steering.md): one HTTP, HTTPS or TCP connection to a check's address, answering whether
 * the endpoint passed, why not, and how long it took. Every probe passes the outbound rule first (`mayConnect`,
 * with STEERING_ALLOW_NETWORKS): a check's address is its zone owner's choice.
 *
 * HTTPS does not verify the certificate unless the check asks for it, as Route 53's HTTPS checks do not: an
 * endpoint is healthy when it answers, and a certificate problem is the web server's, not the DNS answer's.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { mayConnect } from './addresses';

export interface ProbeTarget {
  protocol: 'http' | 'https' | 'tcp';
  address: string;
  port: number;
  /** HTTP(S): the Host header and the TLS server name (SNI); none: the address */
  host: string | null;
  path: string;
  statusMin: number;
  statusMax: number;
  /** HTTP(S): a text the body must contain (read up to BODY_LIMIT bytes) */
  bodyContains: string | null;
  verifyTls: boolean;
}

export interface ProbeResult {
  ok: boolean;
  error: string | null;
  latencyMs: number | null;
}

/** how much of a body is read for `bodyContains` (Route 53 reads the first 5,120 bytes) */
export const BODY_LIMIT = 5120;

export async function probe(target: ProbeTarget, options: { timeoutMs: number; allow: readonly string[] }): Promise<ProbeResult> {
  const outbound = mayConnect(target.address, options.allow);
  if (!outbound.ok) return { ok: false, error: `${outbound.reason} (STEERING_ALLOW_NETWORKS)`, latencyMs: null };
  const started = process.hrtime.bigint();
  const elapsed = () => Math.max(0, Math.round(Number(process.hrtime.bigint() - started) / 1e6));
  try {
    const failure = target.protocol === 'tcp' ? await connectTcp(target, options.timeoutMs) : await requestHttp(target, options.timeoutMs);
    return { ok: failure === null, error: failure, latencyMs: elapsed() };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error), latencyMs: null };
  }
}

/** a TCP connection opened and closed: null, or why not */
function connectTcp(target: ProbeTarget, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.address, port: target.port });
    const done = (failure: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(failure);
    };
    const timer = setTimeout(() => done(`no connection within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(null));
    socket.once('error', (error) => done(error.message));
  });
}

/** one GET: null when the status is in range (and the body holds the text asked for), or why not */
function requestHttp(target: ProbeTarget, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const name = target.host ?? (net.isIPv6(target.address) ? `[${target.address}]` : target.address);
    const secure = target.protocol === 'https';
    const request = (secure ? https : http).request({
      host: target.address,
      port: target.port,
      path: target.path,
      method: 'GET',
      headers: { host: defaultPort(target) ? name : `${name}:${target.port}`, 'user-agent': 'zonekeeper-steering' },
      agent: false,
      ...(secure
        ? { servername: target.host && !net.isIP(target.host) ? target.host : undefined, rejectUnauthorized: target.verifyTls }
        : {}),
    });
    let settled = false;
    const done = (failure: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(failure);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    request.once('error', (error) => done(error.message));
    request.once('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status < target.statusMin || status > target.statusMax) {
        response.resume();
        done(`HTTP status ${status}, not ${target.statusMin}–${target.statusMax}`);
        return;
      }
      if (target.bodyContains === null) {
        response.resume();
        done(null);
        return;
      }
      const wanted = target.bodyContains;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes(wanted)) done(null);
        else if (body.length >= BODY_LIMIT) done(`the body's first ${BODY_LIMIT} bytes do not contain ${JSON.stringify(wanted)}`);
      });
      response.once('end', () => done(body.includes(wanted) ? null : `the body does not contain ${JSON.stringify(wanted)}`));
      response.once('error', (error) => done(error.message));
    });
    request.end();
  });
}

const defaultPort = (target: ProbeTarget) => target.port === (target.protocol === 'https' ? 443 : 80);
