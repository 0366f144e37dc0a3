/**
 * Iterative resolution (RFC 1034 §5.3.3) from root hints, as a resolver finds a zone: the health checker's view
 * of the DNS tree (docs/health.md). Each question goes without recursion to the servers of the closest zone cut
 * known, label by label from the root down (the way RFC 9156 minimises a query's name), so the referral that
 * delegates a zone is seen as its parent's servers give it: its NS set, its glue.
 *
 * One resolver is one check round: every answer is kept for the round (the root's referral to a TLD and the
 * TLD's own servers are asked once however many zones below it are checked), a server that did not answer is
 * not asked again in the round (a dead server costs two timeouts, its question sent twice, not two per zone), and no server has more than
 * `perServer` questions in flight (one busy server waits its turn without holding the others, which go on).
 * Addresses learned from the DNS are asked only when `mayAsk` lets them (the outbound rule, src/outbound/, with
 * the operator's HEALTH_ALLOW_NETWORKS: a zone's owner chooses them; docs/health.md, «What the checker asks, and
 * whom»). The round notes whether the root hints answered (`rootReachable`): the checker's own state.
 */
import { hostPortName, type HostPort } from '../config/settings';
import { A } from '../dns/record-types/a';
import { AAAA } from '../dns/record-types/aaaa';
import { NS } from '../dns/record-types/ns';
import { FLAG, readRdata, type WireRecord } from '../dns/wire';
import type { Outbound } from '../outbound/addresses';
import { query, RCODE_NAMES, type DnsAnswer } from './dns-client';

/** a server to ask: its address and port, and the name it was found under (for the messages) */
export interface NameServer extends HostPort {
  name?: string;
}

export type Asked = { ok: true; answer: DnsAnswer } | { ok: false; reason: string };

export interface ResolverOptions {
  rootHints: readonly HostPort[];
  timeoutMs: number;
  /** questions in flight to one server at most */
  perServer?: number;
  /** whether an address learned from the DNS (not a root hint) may be asked (the outbound rule), and why not */
  mayAsk(address: string): Outbound;
  /** AAAA addresses of servers are asked as well as A */
  ipv6: boolean;
}

/** how a zone is delegated, as its parent's servers show it */
export interface Delegation {
  kind: 'delegated';
  /** the parent zone, '' for the root */
  parent: string;
  /** the parent's servers, the one that answered first */
  parentServers: NameServer[];
  /**
   * `referral`: the parent's servers referred to the zone's servers (RFC 1034 §4.3.2); `served`: they serve the
   * zone themselves and answered from it, so the parent's own delegation records are not visible in the DNS
   */
  seen: 'referral' | 'served';
  /** the NS set the parent gives, host names without the trailing dot, sorted */
  ns: string[];
  /** the addresses the parent gave beside it (glue), by host name */
  glue: Map<string, string[]>;
}

export type DelegationResult =
  | Delegation
  | { kind: 'not-delegated'; parent: string; parentServers: NameServer[]; reason: string }
  | { kind: 'unreachable'; parent: string; reason: string };

export type AddressResult = { ok: true; addresses: string[] } | { ok: false; reason: string };

interface Cut {
  name: string;
  servers: NameServer[];
}

type Step =
  | { kind: 'cut'; via: 'referral' | 'served'; ns: string[]; glue: Map<string, string[]>; server: NameServer }
  | { kind: 'inside'; server: NameServer }
  | { kind: 'nxdomain'; server: NameServer }
  | { kind: 'unreachable'; reason: string };

/** the resolution of a name through its servers' names goes this deep at most (a loop of NS names ends here) */
const MAX_DEPTH = 6;
const DEFAULT_PER_SERVER = 4;
/** times a question is sent to a server that does not answer (over UDP a datagram can be lost) */
const ATTEMPTS = 2;
/**
 * the servers of one zone cut asked in turn for one name at most: past them the cut counts as unreachable (a
 * check whose root hints are all dead waits this many timeouts, not thirteen)
 */
const MAX_TRIES = 5;

/** a name as compared: lower case, no trailing dot ('' the root) */
export const bareName = (name: string): string => name.toLowerCase().replace(/\.$/, '');
const absolute = (name: string) => (name === '' ? '.' : `${name}.`);
/** a server in a message: its name and address when known */
export const serverLabel = (server: NameServer): string =>
  server.name ? `${server.name} (${server.port === 53 ? server.host : hostPortName(server)})` : hostPortName(server);

/** the ancestors of a name from the top-level label down, the name itself last ('a.b.c': c, b.c, a.b.c) */
function lineOf(name: string): string[] {
  const labels = name.split('.');
  return labels.map((_, i) => labels.slice(labels.length - 1 - i).join('.'));
}

/** the servers in an order that starts at a place set by the name: zones below one parent share its servers' load */
function rotated<T>(items: readonly T[], name: string): T[] {
  if (items.length < 2) return [...items];
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  const start = hash % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

export class IterativeResolver {
  private readonly answers = new Map<string, Promise<Asked>>();
  private readonly steps = new Map<string, Promise<Step>>();
  private readonly addressCache = new Map<string, Promise<AddressResult>>();
  /** servers that did not answer in this round, with why */
  private readonly silent = new Map<string, string>();
  private readonly slots = new Map<string, { busy: number; waiting: (() => void)[] }>();
  private readonly perServer: number;
  /** questions sent in this round (the cost of a round, for the logs and the bench) */
  queries = 0;
  /**
   * Whether the root hints answered in this round: true once a root server gave an answer to work from (a referral,
   * an answer, NXDOMAIN), false when the root was asked and none did (why: `rootReason`), undefined before the
   * root was asked. A root out of reach is the checker's state, not any zone's fault (docs/health.md).
   */
  rootReachable: boolean | undefined;
  rootReason: string | undefined;
  readonly startedAt = Date.now();
  stopped = false;

  constructor(private readonly options: ResolverOptions) {
    this.perServer = options.perServer ?? DEFAULT_PER_SERVER;
  }

  /** whether an address learned from the DNS may be asked (the outbound rule, opened by the operator's setting) */
  mayAsk(address: string): Outbound {
    return this.options.mayAsk(address);
  }

  /**
   * One question to one server, once per round: the same question again gets the same answer. A server that
   * did not answer at all (timeout, unreachable) is not asked again in the round.
   */
  ask(server: HostPort, name: string, type: number, dnssec = false): Promise<Asked> {
    const where = hostPortName(server);
    const key = `${where} ${name} ${type} ${dnssec ? 'do' : ''}`;
    let asked = this.answers.get(key);
    if (!asked) {
      asked = this.send(server, where, name, type, dnssec);
      this.answers.set(key, asked);
    }
    return asked;
  }

  /**
   * Ends the round at once (the process stops): every question not yet sent fails, those in flight end within
   * their timeout; what a check found from then on is not to be kept (`stopped`).
   */
  stop(): void {
    this.stopped = true;
  }

  private async send(server: HostPort, where: string, name: string, type: number, dnssec: boolean): Promise<Asked> {
    if (this.stopped) return { ok: false, reason: 'the check stopped' };
    const gone = this.silent.get(where);
    if (gone) return { ok: false, reason: `${gone} (earlier in this check round)` };
    await this.turn(where);
    try {
      const again = this.silent.get(where);
      if (again) return { ok: false, reason: `${again} (earlier in this check round)` };
      // a question is sent twice before the server counts as silent: one lost datagram does not make a finding
      let reason = '';
      for (let attempt = 0; attempt < ATTEMPTS && !this.stopped; attempt++) {
        try {
          this.queries++;
          const answer = await query({ host: server.host, port: server.port }, absolute(name), type, this.options.timeoutMs, { dnssec });
          return { ok: true, answer };
        } catch (error) {
          reason = (error as Error).message;
        }
      }
      this.silent.set(where, reason);
      return { ok: false, reason };
    } finally {
      this.release(where);
    }
  }

  private async turn(where: string): Promise<void> {
    let slot = this.slots.get(where);
    if (!slot) {
      slot = { busy: 0, waiting: [] };
      this.slots.set(where, slot);
    }
    if (slot.busy < this.perServer) {
      slot.busy++;
      return;
    }
    await new Promise<void>((resolve) => slot.waiting.push(resolve));
  }

  private release(where: string): void {
    const slot = this.slots.get(where)!;
    const next = slot.waiting.shift();
    // the turn passes on to the next question waiting (busy stays as it is), or frees a slot
    if (next) next();
    else slot.busy--;
  }

  /** How the parent delegates `zone` (a name without the trailing dot), found from the root down. */
  async delegationOf(zone: string): Promise<DelegationResult> {
    const name = bareName(zone);
    let cut: Cut = { name: '', servers: this.options.rootHints.map((h) => ({ host: h.host, port: h.port })) };
    for (const label of lineOf(name)) {
      const step = await this.step(cut, label);
      if (step.kind === 'unreachable') return { kind: 'unreachable', parent: cut.name, reason: step.reason };
      if (step.kind === 'nxdomain')
        return {
          kind: 'not-delegated',
          parent: cut.name,
          parentServers: cut.servers,
          reason: `${serverLabel(step.server)} answered NXDOMAIN for ${label}`,
        };
      if (step.kind === 'inside') {
        if (label === name)
          return {
            kind: 'not-delegated',
            parent: cut.name,
            parentServers: cut.servers,
            reason: `${serverLabel(step.server)} answers for ${name} as part of ${absolute(cut.name)} (no delegation)`,
          };
        continue;
      }
      if (label === name)
        return {
          kind: 'delegated',
          parent: cut.name,
          parentServers: [step.server, ...cut.servers.filter((s) => s !== step.server)],
          seen: step.via,
          ns: step.ns,
          glue: step.glue,
        };
      const servers = await this.serversOf(step.ns, step.glue, 0);
      if (!servers.length)
        return { kind: 'unreachable', parent: label, reason: `no address to ask for the servers of ${label} (${step.ns.join(', ')})` };
      cut = { name: label, servers };
    }
    return { kind: 'unreachable', parent: '', reason: 'the root zone has no parent' };
  }

  /**
   * The addresses of a host name (A, and AAAA when asked for), resolved from the root down; a name that does not
   * exist has none. Each name once per round.
   */
  addressesOf(name: string, depth = 0): Promise<AddressResult> {
    const host = bareName(name);
    let found = this.addressCache.get(host);
    if (!found) {
      found = this.resolveAddresses(host, depth);
      this.addressCache.set(host, found);
    }
    return found;
  }

  private async resolveAddresses(host: string, depth: number): Promise<AddressResult> {
    if (depth > MAX_DEPTH) return { ok: false, reason: `${host}: resolving its servers' names went ${MAX_DEPTH} names deep` };
    let cut: Cut = { name: '', servers: this.options.rootHints.map((h) => ({ host: h.host, port: h.port })) };
    for (const label of lineOf(host)) {
      const step = await this.step(cut, label);
      if (step.kind === 'unreachable') return { ok: false, reason: `${host}: ${step.reason}` };
      if (step.kind === 'nxdomain') return { ok: true, addresses: [] };
      if (step.kind === 'inside') continue;
      const servers = await this.serversOf(step.ns, step.glue, depth);
      if (!servers.length) return { ok: false, reason: `${host}: no address to ask for the servers of ${label}` };
      cut = { name: label, servers };
    }
    const types = this.options.ipv6 ? [A, AAAA] : [A];
    const addresses: string[] = [];
    for (const definition of types) {
      const reasons: string[] = [];
      let answered = false;
      for (const server of rotated(cut.servers, host).slice(0, MAX_TRIES)) {
        const asked = await this.ask(server, host, definition.code);
        if (!asked.ok) {
          reasons.push(`${serverLabel(server)}: ${asked.reason}`);
          continue;
        }
        const { answer } = asked;
        if (!(answer.message.flags & FLAG.AA) || (answer.rcode !== 0 && answer.rcode !== 3)) {
          reasons.push(`${serverLabel(server)}: ${answer.rcode ? rcodeName(answer.rcode) : 'answer without authority'}`);
          continue;
        }
        for (const record of answer.message.answers)
          if (record.type === definition.code && bareName(record.name) === host)
            addresses.push(definition.format(readRdata(answer.raw, record, definition) as never));
        answered = true;
        break;
      }
      if (!answered) return { ok: false, reason: `${host}: ${reasons.join('; ') || 'no server to ask'}` };
    }
    return { ok: true, addresses: [...new Set(addresses)] };
  }

  /** the servers named by an NS set: glue where given, else their names resolved; only addresses that may be asked */
  private async serversOf(ns: readonly string[], glue: Map<string, string[]>, depth: number): Promise<NameServer[]> {
    const found = await Promise.all(
      ns.map(async (name) => {
        const given = glue.get(name);
        const addresses = given?.length ? given : await this.addressesOf(name, depth + 1).then((r) => (r.ok ? r.addresses : []));
        return addresses
          .filter((address) => this.options.ipv6 || !address.includes(':'))
          .filter((address) => this.options.mayAsk(address).ok)
          .map((host) => ({ host, port: 53, name }));
      }),
    );
    return found.flat();
  }

  /** asks a cut's servers for `name`'s NS, once per round for each cut and name */
  private step(cut: Cut, name: string): Promise<Step> {
    const key = `${cut.name} ${name}`;
    let step = this.steps.get(key);
    if (!step) {
      step = this.askCut(cut, name);
      this.steps.set(key, step);
    }
    return step;
  }

  private async askCut(cut: Cut, name: string): Promise<Step> {
    const step = await this.askCutServers(cut, name);
    if (cut.name === '') {
      if (step.kind !== 'unreachable') this.rootReachable = true;
      else if (this.rootReachable === undefined) {
        this.rootReachable = false;
        this.rootReason = step.reason;
      }
    }
    return step;
  }

  private async askCutServers(cut: Cut, name: string): Promise<Step> {
    const reasons: string[] = [];
    for (const server of rotated(cut.servers, name).slice(0, MAX_TRIES)) {
      const asked = await this.ask(server, name, NS.code);
      if (!asked.ok) {
        reasons.push(`${serverLabel(server)}: ${asked.reason}`);
        continue;
      }
      const { answer } = asked;
      const authoritative = (answer.message.flags & FLAG.AA) !== 0;
      if (answer.rcode === 3 && authoritative) return { kind: 'nxdomain', server };
      if (answer.rcode !== 0) {
        reasons.push(`${serverLabel(server)}: answered ${rcodeName(answer.rcode)}`);
        continue;
      }
      const nsOf = (records: readonly WireRecord[]) =>
        [
          ...new Set(
            records
              .filter((r) => r.type === NS.code && bareName(r.name) === name)
              .map((r) => bareName(readRdata(answer.raw, r, NS).target)),
          ),
        ].sort();
      if (authoritative) {
        const own = nsOf(answer.message.answers);
        if (own.length) return { kind: 'cut', via: 'served', ns: own, glue: glueOf(answer, own), server };
        return { kind: 'inside', server };
      }
      const referral = nsOf(answer.message.authorities);
      if (referral.length) return { kind: 'cut', via: 'referral', ns: referral, glue: glueOf(answer, referral), server };
      // neither an answer with authority nor a referral down to the name: this server does not serve the cut
      reasons.push(`${serverLabel(server)}: no authoritative answer or referral for ${name} (lame for ${absolute(cut.name)})`);
    }
    return {
      kind: 'unreachable',
      reason: `no server of ${absolute(cut.name)} answered for ${name}: ${reasons.join('; ') || 'no server to ask'}`,
    };
  }
}

export const rcodeName = (rcode: number): string => RCODE_NAMES[rcode] ?? `RCODE ${rcode}`;

/** the addresses an answer's additional section gives for these names (glue), A and AAAA */
function glueOf(answer: DnsAnswer, names: readonly string[]): Map<string, string[]> {
  const wanted = new Set(names);
  const glue = new Map<string, string[]>();
  for (const record of answer.message.additionals) {
    const owner = bareName(record.name);
    if (!wanted.has(owner)) continue;
    let address: string | undefined;
    if (record.type === A.code) address = A.format(readRdata(answer.raw, record, A));
    else if (record.type === AAAA.code) address = AAAA.format(readRdata(answer.raw, record, AAAA));
    if (!address) continue;
    glue.set(owner, [...new Set([...(glue.get(owner) ?? []), address])].sort());
  }
  return glue;
}
