import { DomainError, ERROR_CATALOGUE } from '../errors/catalogue';
import { isIP } from 'node:net';
import type { Settings } from '../config/settings';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import type { DomainRow } from '../repositories/read-model';
import type { ZoneChangeOptions } from '../services/zones/zone-changes.service';
import { SERVER_ID } from './presenters';

/**
 * What every route of the PowerDNS HTTP API shares (routes.ts assembles them): the route's shape, PowerDNS's
 * refusals, and reading a zone, a name or a body as PowerDNS's clients send them.
 */

/** A refusal in PowerDNS's shape: `{"error": message}` with this status. */
export class PowerDnsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type PowerDnsResult =
  | { status: number; body: unknown }
  | { status: number; text: string; contentType: string }
  /** an answer written as its chunks of text come (every zone's JSON: external-dns and octoDNS read the list whole) */
  | { status: number; chunks: AsyncIterable<string | Uint8Array>; contentType: string }
  | { status: number };

export interface PowerDnsInputs {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  services: Services;
  ctx: RequestContext;
  /** filled by a route that sends a change set: the label of each change (`RRset www.example.com. IN A`), for its errors */
  labels: string[];
  /** likewise, the label of each RRset whose comments the set replaces */
  commentLabels: string[];
  /** what the client's Accept prefers of the two PowerDNS answers in: `json` or `text` (the export) */
  accepts: 'json' | 'text';
}

export interface PowerDnsRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  /**
   * a GET that writes (the audit of a TSIG secret read): answered by the primary, never by a standby
   * (http/read-routing.ts), which refuses every write
   */
  readsPrimary?: true;
  handle(inputs: PowerDnsInputs): PowerDnsResult | Promise<PowerDnsResult>;
}

/**
 * Record content as PowerDNS takes it: standing alone, names fully qualified and character-strings quoted; an
 * apex SOA gives its fields, its serial Zonekeeper's (PowerDNS's SOA-EDIT-API). TTLs are ALLOWED_TTLS_BEYOND_REST's
 * (the request's policy, services/context.ts): any by default, as PowerDNS takes them
 */
export const CONTENT_AS_POWERDNS: ZoneChangeOptions = { rdataNames: 'fullyQualified', soa: 'fields' };

/** a name or field the services refused as malformed (400 or 422) */
export const isInputError = (error: unknown) => error instanceof DomainError && [400, 422].includes(ERROR_CATALOGUE[error.code].status);

/** a client's value in a message, whatever JSON type it came as */
export const shown = (value: unknown) => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

export const refuse = (message: string, status = 422) => new PowerDnsError(status, message);

/** the request body as an object of fields, or PowerDNS's 422 */
export function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw refuse('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * A name as PowerDNS takes it in a body: text ending with the root's dot (ws-api.cc apiNameToDNSName: "DNS
 * Name 'www' is not canonical"); any letter case.
 */
export function canonicalName(value: unknown, what = 'DNS Name'): string {
  if (typeof value !== 'string' || value === '') throw refuse(`${what} is not specified or not a string`);
  if (!value.endsWith('.')) throw refuse(`${what} '${value}' is not canonical`);
  return value;
}

/** a zone id from the path (`example.com.`, `example.com`; `=2F` is `/`, ws-api.cc apiZoneIdToName) */
export const zoneOfPath = (id: string) => id.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * A zone variant as PowerDNS 5 addresses it (`example.org..internal`: the zone's name, its root dot, then the
 * variant's name) is not a zone here: Zonekeeper's split horizon is views, overlays on one zone that the operator
 * reads and changes through the views API (docs/views.md). PowerDNS 4.7 answers such an id 422 (`Unable to parse
 * DNS Name`, the empty label); so does this, saying where a view is addressed, before any route reads the zone.
 */
export function refuseZoneVariant(id: string): void {
  const variant = /^(.+?)\.\.([^.]+)$/.exec(zoneOfPath(id));
  if (!variant) return;
  const [, zone, view] = variant;
  throw refuse(
    `Unable to parse DNS Name '${id}': Zonekeeper has no zone variants; a view ('${view}') of zone ${zone}. is addressed through the views API (GET /api/domain/views/${zone}/${view}, GraphQL viewZone), not as a zone variant`,
  );
}

export const notFound = (inputs: PowerDnsInputs) => refuse(`Could not find domain '${inputs.params.zone}'`, 404);

/** a zone the key can see, or 404 as PowerDNS answers for a zone it does not have */
export async function zoneOf(inputs: PowerDnsInputs): Promise<DomainRow> {
  try {
    return await inputs.services.domains.get(inputs.ctx, { name: zoneOfPath(inputs.params.zone) });
  } catch (error) {
    if (error instanceof DomainError && (error.code === 'ZONE_NOT_FOUND' || isInputError(error))) throw notFound(inputs);
    throw error;
  }
}

/**
 * A primary of PowerDNS's `masters` as Zonekeeper's primaries take it: an IP address, with `:port` (an IPv6
 * address in brackets for that: `[2001:db8::53]:5300`); 53 without one. The services check the address itself.
 */
export function primaryOf(text: unknown, field = 'masters'): { address: string; port?: number } {
  if (typeof text !== 'string' || text === '') throw refuse(`${field}: each server is an IP address, as a string`);
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const v4 = /^([0-9.]+):(\d{1,5})$/.exec(text);
  const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [text, undefined];
  if (!isIP(address))
    throw refuse(field === 'masters' ? `Master (${text}) is not an IP address` : `${field}: ${text} is not an IP address`);
  return { address, ...(port === undefined ? {} : { port: Number(port) }) };
}

/** PowerDNS's names of SERIAL_POLICY: what a zone's SOA-EDIT-API reads (the serial each change gives) */
export const SOA_EDIT_API: Record<Settings['serialPolicy'], string> = { date: 'DEFAULT', increment: 'INCREASE', unixtime: 'EPOCH' };

export const SERVER = `/servers/${SERVER_ID}`;
export const ZONE = `${SERVER}/zones/:zone`;
