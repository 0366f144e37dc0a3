import type { ClientConfig } from 'pg';
import { logger } from '../logger';
import { noteDatabaseFailure } from './availability';
import { DatabaseHosts, HostedClient, hostedClientClass } from './database-hosts';

/** how soon a lost LISTEN connection is opened again: the service must serve within a second of the database's return */
const RECONNECT_MS = 250;

/** One reader of a channel: its messages, and a call each time the connection listens (again). */
interface Subscription {
  channel: string;
  onMessage: (payload: string) => void;
  /**
   * The connection listens (after the subscription, and again after every reconnection): what committed while
   * nobody listened sent its notification to nobody, so the reader reads what it may have missed.
   */
  onListening: () => void;
}

/**
 * The process's one LISTEN connection (PostgreSQL's LISTEN/NOTIFY), shared by every reader in it: the change
 * feed of live updates and the propagation worker, on the journal's channel and the propagation channel.
 *
 * A pooled connection cannot hold LISTEN (the pool lends it to others, and a LISTEN lives as long as its
 * session), so this is a connection of its own, outside the pool (src/db/database.ts): one per process,
 * whatever roles it runs and however many readers subscribe. It is opened at the first subscription; when it
 * is lost it is opened again every RECONNECT_MS, and each subscriber's `onListening` runs when it is back.
 * Notifications are wake-ups only: a reader that missed one reads the journal anyway (its poll, `onListening`).
 * With several database hosts it connects to the primary the pool found (db/database-hosts.ts), and moves
 * when the pool loses it: a LISTEN on the old primary would hear nothing the new one's writers send.
 */
export class Notifications {
  private readonly subscriptions = new Set<Subscription>();
  private client?: HostedClient;
  private readonly Client: new (config: ClientConfig) => HostedClient;
  private readonly stopFollowing: () => void;
  /** the channels the current connection listens on */
  private listening = new Set<string>();
  private connecting?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly hosts: DatabaseHosts) {
    this.Client = hostedClientClass(hosts);
    this.stopFollowing = hosts.onLoss(() => {
      const client = this.client;
      if (client && client.generation !== hosts.generation) this.lost(client, new Error('the database primary moved: listening again'));
    });
  }

  /**
   * Subscribes to `channel`; resolves once the connection listens on it or, when the database cannot be
   * reached now, once the first attempt failed (the connection is retried; `onListening` tells when it is back).
   * Returns the unsubscribe.
   */
  async subscribe(channel: string, onMessage: (payload: string) => void, onListening: () => void = () => undefined): Promise<() => void> {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
    const subscription: Subscription = { channel, onMessage, onListening };
    this.subscriptions.add(subscription);
    const unsubscribe = () => {
      this.subscriptions.delete(subscription);
    };
    if (this.client && !this.connecting) {
      try {
        if (!this.listening.has(channel)) {
          await this.client.query(`listen ${channel}`);
          this.listening.add(channel);
        }
        subscription.onListening();
      } catch (error) {
        this.lost(this.client, error);
      }
      return unsubscribe;
    }
    await (this.connecting ??= this.connect());
    return unsubscribe;
  }

  /** whether the connection listens now (readers poll more often while it does not) */
  get connected(): boolean {
    return this.client !== undefined && !this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopFollowing();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.subscriptions.clear();
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new this.Client({ connectionString: this.hosts.targets[0].url, connectionTimeoutMillis: 3000 });
    client.on('notification', (message) => {
      for (const subscription of [...this.subscriptions]) {
        if (subscription.channel === message.channel) subscription.onMessage(message.payload ?? '');
      }
    });
    client.on('error', (error) => this.lost(client, error));
    try {
      await client.connect();
      // a subscription made while this connects is listened to as well: until none is missing
      const channels = new Set<string>();
      for (;;) {
        const missing = [...new Set([...this.subscriptions].map((s) => s.channel))].filter((channel) => !channels.has(channel));
        if (!missing.length) break;
        for (const channel of missing) {
          await client.query(`listen ${channel}`);
          channels.add(channel);
        }
      }
      if (this.closed) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.listening = channels;
    } catch (error) {
      this.connecting = undefined;
      this.lost(client, error);
      return;
    }
    this.connecting = undefined;
    for (const subscription of [...this.subscriptions]) subscription.onListening();
  }

  /** the connection failed: readers poll meanwhile, and it is opened again soon */
  private lost(client: HostedClient, error: unknown): void {
    this.hosts.lost(client.generation);
    if (this.client === client) {
      this.client = undefined;
      this.listening = new Set();
    }
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (!noteDatabaseFailure(error, 'LISTEN connection')) logger.warn({ err: error }, 'LISTEN connection lost; reconnecting');
    if (this.retryTimer || this.connecting) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.closed && !this.client && !this.connecting) void (this.connecting = this.connect());
    }, RECONNECT_MS);
    this.retryTimer.unref();
  }
}
