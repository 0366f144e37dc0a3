/**
 * The webhooks' HTTP client (docs/events.md): one POST of a delivery to the endpoint its subscription names, an
 * address its owner chose, so it passes the outbound rule (`mayConnect`, with WEBHOOK_ALLOW) before it connects,
 * as steering's probes (probes.ts) do with theirs. What to send, and when, is the worker's (worker/webhook-delivery.ts).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { mayConnect } from './addresses';

/** how a delivery connects: WEBHOOK_ALLOW, WEBHOOK_TIMEOUT_MS and WEBHOOK_CONNECT_TIMEOUT_MS */
export interface WebhookConnection {
  allow: readonly string[];
  timeoutMs: number;
  connectTimeoutMs: number;
}

/** the most of an answer's body read (its status is what counts) */
const MAX_BODY_BYTES = 4096;

/**
 * The address check at connect time: the name is resolved here and every address it gives is checked
 * (the outbound rule, mayConnect; WEBHOOK_ALLOW) before the socket connects to it, so a name that resolved to a public address
 * when the subscription was made and to a private one now (DNS rebinding) is refused.
 */
export function guardedLookup(allow: readonly string[]): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: any[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as dns.LookupAddress[];
      const refusal = list.map((a) => mayConnect(a.address, allow)).find((outbound) => !outbound.ok);
      if (refusal && !refusal.ok)
        return callback(Object.assign(new Error(`refused: ${refusal.reason} (WEBHOOK_ALLOW)`), { code: 'EADDRNOTALLOWED' }));
      if (options.all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  }) as LookupFunction;
}

export interface PostResult {
  status: number | null;
  error?: string;
}

/** one POST as the duty sends it: checked address, timeouts, no redirects, a bounded read of the answer */
export function postMessage(
  connection: WebhookConnection,
  agents: { http: http.Agent; https: https.Agent },
  target: string,
  message: { body: string; headers: Record<string, string> },
): Promise<PostResult> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return resolve({ status: null, error: 'not a URL' });
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    // an address in the URL is not looked up (Node connects to it as it is): checked here
    if (net.isIP(host)) {
      const outbound = mayConnect(host, connection.allow);
      if (!outbound.ok) return resolve({ status: null, error: `refused: ${outbound.reason} (WEBHOOK_ALLOW)` });
    }
    const secure = url.protocol === 'https:';
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      resolve(result);
    };
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      headers: { ...message.headers, 'content-length': String(Buffer.byteLength(message.body)) },
      lookup: guardedLookup(connection.allow),
    });
    const total = setTimeout(() => {
      request.destroy(new Error(`no answer within WEBHOOK_TIMEOUT_MS=${connection.timeoutMs}`));
    }, connection.timeoutMs);
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connect = setTimeout(
        () => request.destroy(new Error(`not connected within WEBHOOK_CONNECT_TIMEOUT_MS=${connection.connectTimeoutMs}`)),
        connection.connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connect));
      socket.once('secureConnect', () => clearTimeout(connect));
      socket.once('close', () => clearTimeout(connect));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      // a little of the body is read so that the connection can be kept; a long one is cut (its status is known)
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_BODY_BYTES) response.destroy();
      });
      response.on('end', () => done({ status }));
      response.on('close', () => done({ status }));
      response.on('error', () => done({ status }));
    });
    request.on('error', (error) => done({ status: null, error: error.message }));
    request.end(message.body);
  });
}
