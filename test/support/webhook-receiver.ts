import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook endpoint for tests (docs/events.md, «A delivery»): a real HTTP server on 127.0.0.1 (the service needs
 * WEBHOOK_ALLOW=127.0.0.0/8 to reach it) that checks every request's signature with the Standard Webhooks library,
 * once per secret it knows, so a test can tell which secrets sign a delivery, and answers as `answer` says.
 */

/** how the endpoint answers a request: a status at once, a status after a while, or never */
export type Answer = number | 'hang' | { status: number; afterMs: number };

/** one request the endpoint got, whatever it answered */
export interface ReceivedRequest {
  /** `webhook-id`: `evt_<event id>`, the same on every attempt */
  id: string;
  /** `webhook-timestamp`: when the service signed it (seconds) */
  timestamp: number;
  body: string;
  answered: Answer;
  /** the secrets of `secrets` (when it came) whose signature it carries, verified by the library */
  verifiedBy: string[];
  /** when it came (ms) */
  at: number;
}

/** a delivery taken (answered 2xx) and verified by at least one secret */
export interface Received {
  id: string;
  type: string;
  zone: string | undefined;
  data: any;
  verifiedBy: string[];
  at: number;
}

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** the deliveries taken (2xx) that some secret verified, in the order they came */
  readonly received: Received[] = [];
  /** the bodies of the deliveries taken (2xx) that no secret verified */
  readonly unverified: string[] = [];
  /** the secrets it verifies with, each on its own */
  secrets: string[] = [];
  /** the answer to the request (its index among `requests` is the number before it) */
  answer: (req: http.IncomingMessage, index: number) => Answer = () => 200;
  url = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const how = this.answer(req, this.requests.length);
      const headers = req.headers as Record<string, string>;
      const verifiedBy: string[] = [];
      let message: { type: string; data?: any } | undefined;
      for (const secret of this.secrets) {
        try {
          message = new Webhook(secret).verify(body, headers) as typeof message;
          verifiedBy.push(secret);
        } catch {
          // not signed with this secret (or stale): another may verify it
        }
      }
      const id = String(req.headers['webhook-id']);
      this.requests.push({ id, timestamp: Number(req.headers['webhook-timestamp']), body, answered: how, verifiedBy, at: Date.now() });
      if (how === 'hang') return;
      const status = typeof how === 'number' ? how : how.status;
      if (status >= 200 && status < 300) {
        if (message)
          this.received.push({ id, type: message.type, zone: message.data?.zone, data: message.data, verifiedBy, at: Date.now() });
        else this.unverified.push(body);
      }
      const send = () => {
        res.statusCode = status;
        res.end('ok');
      };
      if (typeof how === 'object') setTimeout(send, how.afterMs);
      else send();
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** the types of the verified deliveries of `zone`, in the order they came */
  typesOf(zone: string): string[] {
    return this.received.filter((r) => r.zone === zone).map((r) => r.type);
  }
}
