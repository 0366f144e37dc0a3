import type { Settings } from '../../config/settings';
import { type AllowedTtls, DEFAULT_RECORD_TTL } from '../../dns/ttl';
import { canSeeUser, requireAdmin, scopeUserId } from '../../auth/principal';
import { requireFlag } from '../../auth/policy';
import { CanonicalRecord } from '../../dns/record';
import { expandTemplate, TEMPLATE_PROBE_ZONE, TemplateRecordInput } from '../../dns/zone-template';
import { DomainError, errorFromProblems } from '../../errors/catalogue';
import { withSerial } from '../../dns/zone-rules';
import { FLATTENED_TYPE_NAMES } from '../../dns/record-types';
import { aliasResolversUnset } from '../write-engine/alias-resolvers-unset';
import {
  deleteRecordTemplate,
  findRecordTemplate,
  insertRecordTemplate,
  listRecordTemplates,
  recordTemplateForUser,
  RecordTemplateRow,
  TemplateRecord,
  updateRecordTemplate,
} from '../../repositories/record-templates';
import type { Sql } from '../../db/pool';
import { allowedTtlsOf, type RequestContext } from '../context';
import { inTransaction } from '../db-errors';

export type { RecordTemplateRow, TemplateRecord } from '../../repositories/record-templates';

/** the name of the template the settings' DEFAULT_* make; a zone created without a template gets it */
export const DEFAULT_TEMPLATE_NAME = 'default';
/** the owner of the default CNAME to the apex (RESTKnot's default records; DEFAULT_WWW_CNAME turns it off) */
export const DEFAULT_WWW_OWNER = 'www';
const MAX_TEMPLATE_RECORDS = 1000;
const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** a template as the APIs show it: the default one (from the settings) has no id */
export interface RecordTemplateView extends Omit<RecordTemplateRow, 'id' | 'createdAt' | 'updatedAt'> {
  id: number | null;
  createdAt: Date | null;
  updatedAt: Date | null;
}

/**
 * Record templates (docs/templates-and-alias.md): named record sets a new zone starts with, admin-wide or
 * one user's, checked against the zone rules when saved (so a zone created from one never fails them).
 */
export class RecordTemplatesService {
  constructor(private readonly settings: Settings) {}

  /** RFC 1035 §3.3.13 SOA, one NS per DEFAULT_NS, `www CNAME {zone}.` unless DEFAULT_WWW_CNAME=off: today's new zone */
  defaultTemplate(): RecordTemplateView {
    const { defaultSoaMname, defaultSoaRname, defaultNs, defaultWwwCname } = this.settings;
    const records: TemplateRecord[] = [
      { owner: '@', type: 'SOA', rdata: `${defaultSoaMname} ${defaultSoaRname} 0 3600 1800 604800 86400`, ttl: DEFAULT_RECORD_TTL },
      ...defaultNs.map((ns) => ({ owner: '@', type: 'NS', rdata: ns, ttl: DEFAULT_RECORD_TTL })),
      ...(defaultWwwCname ? [{ owner: DEFAULT_WWW_OWNER, type: 'CNAME', rdata: '{zone}.', ttl: DEFAULT_RECORD_TTL }] : []),
    ];
    return { id: null, userId: null, name: DEFAULT_TEMPLATE_NAME, records, createdAt: null, updatedAt: null };
  }

  /** the default template, the admin-wide ones and the user's (a user key: its own user's) */
  async list(ctx: RequestContext, userId?: number): Promise<RecordTemplateView[]> {
    const scope = scopeUserId(ctx.principal) ?? userId;
    return [this.defaultTemplate(), ...(await listRecordTemplates(ctx.db, { userId: scope }))];
  }

  async create(
    ctx: RequestContext,
    input: { userId?: number | null; name: string; records: TemplateRecordInput[] },
  ): Promise<RecordTemplateRow> {
    const userId = this.ownerOf(ctx, input.userId ?? null);
    const name = this.checkName(input.name);
    const records = this.check(ctx, input.records);
    const saved = await insertRecordTemplate(ctx.db, { userId, name, records });
    if (saved === 'no-user') throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    if (saved === 'duplicate') throw duplicate();
    return saved;
  }

  /** replaces the template's name and records (checked as at creation) */
  async update(
    ctx: RequestContext,
    id: number,
    input: { name?: string | null; records: TemplateRecordInput[] },
  ): Promise<RecordTemplateRow> {
    return inTransaction(ctx.db, async (sql) => {
      const template = await this.writable(ctx, sql, id);
      const name = input.name == null ? template.name : this.checkName(input.name);
      return (await updateRecordTemplate(sql, id, { name, records: this.check(ctx, input.records) }))!;
    });
  }

  async delete(ctx: RequestContext, id: number): Promise<void> {
    await inTransaction(ctx.db, async (sql) => {
      await this.writable(ctx, sql, id);
      await deleteRecordTemplate(sql, id);
    });
  }

  /**
   * The template a new zone of `userId` starts with: `template` (the user's own of that name, else the
   * admin-wide one; none or `default`: the settings' default); `expand` gives its records for a zone.
   */
  async templateFor(sql: Sql, input: { userId: number; template?: string | null }): Promise<RecordTemplateView> {
    const name = input.template ?? DEFAULT_TEMPLATE_NAME;
    const template = name === DEFAULT_TEMPLATE_NAME ? this.defaultTemplate() : await recordTemplateForUser(sql, input.userId, name);
    if (!template) throw templateNotFound('template');
    return template;
  }

  /** a template's records for the zone `zone`, its SOA at the serial given (the template read once for many zones) */
  expand(
    template: RecordTemplateView,
    input: { zone: string; template?: string | null; allowedTtls: AllowedTtls },
  ): (serial: number) => CanonicalRecord[] {
    const name = input.template ?? DEFAULT_TEMPLATE_NAME;
    // the settings' records were never held to a TTL policy (their TTL is 3600 whatever the list): nor are they now;
    // a saved template's are held to the policy of the request that creates the zone (allowedTtlsOf)
    const allowedTtls = template.id === null ? [] : input.allowedTtls;
    const expanded = expandTemplate(input.zone, template.records, allowedTtls);
    if (!expanded.ok) {
      // checked when saved with a short probe name: what fails now is this zone's name (too long for an owner)
      throw errorFromProblems(expanded.problems.map((p) => ({ ...p, message: `template ${name} for ${input.zone}: ${p.message}` })));
    }
    return (serial) => {
      const soa = expanded.records.find((r) => r.type === 'SOA')!;
      return expanded.records.map((r) => (r === soa ? { ...r, rdata: withSerial(r.rdata, serial) } : r));
    };
  }

  /** the template's owner: null (admin-wide) for the admin key only; a user key saves its own user's */
  private ownerOf(ctx: RequestContext, userId: number | null): number | null {
    // another user's is not there for a user key (404), as in a zone's creation; then the key's flag
    if (userId !== null && !canSeeUser(ctx.principal, userId)) throw DomainError.notFound('USER_NOT_FOUND', 'userId');
    requireFlag(ctx.principal.policy, 'mayCreateZones');
    if (userId !== null) return userId;
    if (ctx.principal.kind === 'user') return ctx.principal.userId;
    requireAdmin(ctx.principal);
    return null;
  }

  private async writable(ctx: RequestContext, sql: Sql, id: number): Promise<RecordTemplateRow> {
    const template = await findRecordTemplate(sql, id);
    // a user key sees only its own user's templates as its own; the admin-wide ones are the admin's
    if (!template || (ctx.principal.kind === 'user' && template.userId !== ctx.principal.userId)) throw templateNotFound('id');
    requireFlag(ctx.principal.policy, 'mayCreateZones');
    return template;
  }

  private checkName(input: string): string {
    const name = String(input ?? '').trim();
    if (!TEMPLATE_NAME.test(name))
      throw DomainError.invalid('name', 'name: a template name is 1–63 letters, digits, ".", "_" or "-", starting with a letter or digit');
    if (name.toLowerCase() === DEFAULT_TEMPLATE_NAME)
      throw DomainError.invalid('name', `name: "${DEFAULT_TEMPLATE_NAME}" is the settings' template (DEFAULT_*); choose another name`);
    return name;
  }

  /**
   * The records as saved, checked as a whole zone with a probe name: any zone the template is used for then
   * meets the zone rules (the placeholders and relative names mean the same in every zone).
   */
  private check(ctx: RequestContext, input: TemplateRecordInput[]): TemplateRecord[] {
    if (!Array.isArray(input) || input.length > MAX_TEMPLATE_RECORDS)
      throw DomainError.invalid('records', `records: a template holds 1–${MAX_TEMPLATE_RECORDS} records`);
    const records = input.map((r) => ({
      owner: String(r.owner ?? '').trim(),
      type: String(r.type ?? '')
        .trim()
        .toUpperCase(),
      rdata: String(r.rdata ?? '').trim(),
      ttl: r.ttl ?? DEFAULT_RECORD_TTL,
    }));
    const expanded = expandTemplate(TEMPLATE_PROBE_ZONE, records, allowedTtlsOf(ctx, this.settings));
    if (!expanded.ok) throw errorFromProblems(expanded.problems);
    // an ALIAS nothing could flatten would reach every zone made from the template unserved (alias-flattening.ts)
    const flattened = this.settings.aliasResolvers.length ? -1 : records.findIndex((r) => FLATTENED_TYPE_NAMES.has(r.type));
    if (flattened >= 0) throw aliasResolversUnset(records[flattened].type, `records[${flattened}].type`);
    return records;
  }
}

const templateNotFound = (field: string) => DomainError.notFound('TEMPLATE_NOT_FOUND', field);
const duplicate = () => {
  const { message } = new DomainError('DUPLICATE_TEMPLATE');
  return new DomainError('DUPLICATE_TEMPLATE', message, [{ field: 'name', code: 'DUPLICATE_TEMPLATE', message }]);
};
