import {
  AddForeignDnskeysDocument,
  ConfirmDnssecDsPublishedDocument,
  ConfirmDnssecDsRemovedDocument,
  DisableDnssecDocument,
  DnssecEventsDocument,
  EnableDnssecDocument,
  GetDnssecDocument,
  RemoveForeignDnskeyDocument,
  RestoreDnssecDsDocument,
  RollDnssecAlgorithmDocument,
  RollDnssecKeyDocument,
  WithdrawDnssecDsDocument,
} from './generated/dnssec';
import { DNSSEC_ALGORITHM_CHOICES, DNSSEC_ALGORITHMS, parseDnssecAlgorithm } from '../dns/dnssec/algorithms';
import { presentDnssec, presentDnssecKeyEvent } from './presenters';
import { arrayOf, FieldSpec, ref, RouteSpec } from './route-spec';

/** A zone's DNSSEC REST routes: /domain/dnssec/:zone… (docs/dnssec.md). */

/**
 * An `algorithm` field: the GraphQL enum DnssecAlgorithm's values, or any spelling the model reads (`13`,
 * `ecdsap256sha256`: the PowerDNS API's and the CLI's), handed on as the enum's value; anything else is the
 * router's 422 INVALID_CHOICE naming the field, before GraphQL sees it
 */
const algorithmField = (description: string, required?: true): FieldSpec => ({
  kind: 'string',
  ...(required ? { required } : {}),
  choices: Object.keys(DNSSEC_ALGORITHMS),
  spelling: (written) => parseDnssecAlgorithm(written)?.name,
  description: `${description}: ${DNSSEC_ALGORITHM_CHOICES}, by name in any case or by number`,
});
/**
 * The operator's word about the parent's DS (docs/dnssec.md): POST /domain/dnssec/:zone/<what> runs the
 * GraphQL mutation of the same name as the operation and answers the zone's DNSSEC state.
 */
function dnssecConfirmation(what: string, operationId: 'confirmDnssecDsPublished' | 'confirmDnssecDsRemoved', summary: string): RouteSpec {
  return {
    method: 'post',
    path: `/domain/dnssec/:zone/${what}`,
    operationId,
    tag: 'dnssec',
    status: 200,
    summary,
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const variables = { zone: inputs.zone };
      const dnssec =
        operationId === 'confirmDnssecDsPublished'
          ? (await runner.run(ConfirmDnssecDsPublishedDocument, variables)).confirmDnssecDsPublished
          : (await runner.run(ConfirmDnssecDsRemovedDocument, variables)).confirmDnssecDsRemoved;
      return { body: presentDnssec(dnssec) };
    },
  };
}

export const DNSSEC_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/dnssec/:zone',
    operationId: 'getDnssec',
    tag: 'dnssec',
    readsZone: 'zone',
    status: 200,
    summary: "A zone's DNSSEC: signed or not, its keys with their states, the DS records to give the parent",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(GetDnssecDocument, { name: inputs.zone });
      return { body: presentDnssec(data.domain.dnssec) };
    },
  },
  {
    method: 'get',
    path: '/domain/dnssec/:zone/events',
    operationId: 'listDnssecEvents',
    tag: 'dnssec',
    // every key event comes with a serial step of the zone (its signer's journal row): the zone's ETag follows them
    readsZone: 'zone',
    status: 200,
    summary:
      "A zone's DNSSEC key events, newest first: each step of each key (made, published, active, retired, removed) and why; needs read access to the zone's DNSKEY",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      first: { kind: 'int', description: 'at most this many events (default 100)', max: 1000 },
      after: { kind: 'string', description: 'the id of the last event of the previous page' },
    },
    response: arrayOf('DnssecKeyEvent'),
    async handle(inputs, runner) {
      const data = await runner.run(DnssecEventsDocument, {
        zone: inputs.zone,
        first: inputs.first ?? 100,
        after: inputs.after,
      });
      return { body: data.domain.dnssecEvents.nodes.map(presentDnssecKeyEvent) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone',
    operationId: 'enableDnssec',
    tag: 'dnssec',
    status: 200,
    summary: 'Sign the zone: its keys are made and every RRset signed in one serial step; give the parent one of the DS records answered',
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      algorithm: algorithmField('the algorithm to sign with (default ECDSAP256SHA256)'),
      // the GraphQL enums DnssecDenial and DnssecKeyLayout, spelt as they are
      denial: {
        kind: 'string',
        choices: ['NSEC', 'NSEC3'],
        description: 'NSEC (default) or NSEC3 (no salt, no extra iterations: RFC 9276)',
      },
      nsec3_opt_out: {
        kind: 'string',
        choices: ['true', 'false'],
        description: '"true": NSEC3 opt-out (RFC 5155 §6); "false" (the default): none',
      },
      key_layout: { kind: 'string', choices: ['KSK_ZSK', 'CSK'], description: 'KSK_ZSK (default) or CSK' },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const input = {
        zone: inputs.zone,
        algorithm: inputs.algorithm,
        denial: inputs.denial,
        // the router took only "true" or "false": a misspelt opt-out is refused, not read as false
        nsec3OptOut: inputs.nsec3_opt_out === undefined ? undefined : inputs.nsec3_opt_out === 'true',
        keyLayout: inputs.key_layout,
      };
      const data = await runner.run(EnableDnssecDocument, { input });
      return { body: presentDnssec(data.enableDnssec) };
    },
  },
  {
    method: 'delete',
    path: '/domain/dnssec/:zone',
    operationId: 'disableDnssec',
    tag: 'dnssec',
    status: 200,
    // a bad force on a zone the caller cannot see is that zone's 404, not a 422
    names: 'zone',
    summary:
      "Stop signing the zone (RFC 8078): DS-delete CDS/CDNSKEY published, state disabling until the parent's DS is gone, then unsigned and its keys destroyed; force=true: unsigned now",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      force: {
        kind: 'string',
        choices: ['true', 'false'],
        description: '"true": unsign now, without waiting for the parent to remove the DS; "false" (the default): wait for it',
      },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      // the router took only "true" or "false": a misspelt force is refused, not read as false
      const force = inputs.force === 'true';
      const data = await runner.run(DisableDnssecDocument, { zone: inputs.zone, force });
      return { body: presentDnssec(data.disableDnssec) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone/roll',
    operationId: 'rollDnssecKey',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Start a roll of the zone's ZSK (pre-publication) or KSK/CSK (double-DS) now (RFC 7583); the worker runs its steps with the TTLs and DNSSEC_PROPAGATION_DELAY honoured; 409 DNSSEC_ROLL_IN_PROGRESS when a roll of that key runs already",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      role: {
        kind: 'string',
        required: true,
        // the GraphQL enum DnssecRollRole, spelt as it is
        choices: ['ZSK', 'KSK'],
        description: 'ZSK: the zone-signing key; KSK: the key-signing key, or the combined key of a zone signed with a CSK',
      },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(RollDnssecKeyDocument, { zone: inputs.zone, role: inputs.role });
      return { body: presentDnssec(data.rollDnssecKey) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone/algorithm-roll',
    operationId: 'rollDnssecAlgorithm',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Start a roll of the zone to another signing algorithm now (RFC 6781 §4.1.4, RFC 7583 §3.4, conservative): the new keys sign, then are published, then the parent's DS moves to the new KSK, then the old DNSKEYs and last their signatures go; 409 DNSSEC_ROLL_IN_PROGRESS while any roll runs, 409 DNSSEC_ALGORITHM_UNCHANGED for the zone's own algorithm",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      algorithm: algorithmField('the algorithm to sign with from the end of the roll', true),
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(RollDnssecAlgorithmDocument, {
        zone: inputs.zone,
        algorithm: inputs.algorithm,
      });
      return { body: presentDnssec(data.rollDnssecAlgorithm) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone/foreign-keys',
    operationId: 'addForeignDnskeys',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Multi-signer (RFC 8901 model 2): publish the other signer's DNSKEYs (its ZSK and KSK) in the zone's DNSKEY RRset, signed by this zone's KSK, so a signed zone moves in or out without an insecure moment; the CDS/CDNSKEY then name both KSKs. Exactly one of dnskeys (by value) and fetch_from (the other signer's server, asked for its DNSKEY RRset)",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      dnskeys: {
        kind: 'list',
        description: 'DNSKEYs in presentation form: RDATA (257 3 13 base64…) or whole records; flags 256 or 257, the zone’s algorithm',
        items: { type: 'string' },
      },
      fetch_from: {
        kind: 'string',
        description:
          "the IP address (port 53 unless given) of the other signer's server; loopback and private addresses need DNSSEC_FOREIGN_KEYS_FETCH_ALLOW",
      },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const input = { zone: inputs.zone, dnskeys: inputs.dnskeys, fetchFrom: inputs.fetch_from };
      const data = await runner.run(AddForeignDnskeysDocument, { input });
      return { body: presentDnssec(data.addForeignDnskeys) };
    },
  },
  {
    method: 'delete',
    path: '/domain/dnssec/:zone/foreign-keys/:id',
    operationId: 'removeForeignDnskey',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Multi-signer (RFC 8901): take one of the other signer's DNSKEYs (its foreign_key_id) out of the zone's DNSKEY RRset and CDS/CDNSKEY, once the move is over; 404 DNSSEC_FOREIGN_KEY_NOT_FOUND",
    params: {
      zone: { kind: 'string', required: true, description: 'zone name' },
      id: { kind: 'int', required: true, description: 'the foreign key (foreign_key_id)' },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(RemoveForeignDnskeyDocument, {
        zone: inputs.zone,
        id: String(inputs.id),
      });
      return { body: presentDnssec(data.removeForeignDnskey) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone/ds-withdrawn',
    operationId: 'withdrawDnssecDs',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Multi-signer, moving out (RFC 8901): the zone withdraws its own DS from the parent while it still signs; its CDS/CDNSKEY name the other signer's KSKs alone (RFC 7344, RFC 8078), its DNSKEYs and signatures stay, and a parent held here holds the other signer's DS alone at once (and keeps it when the zone is then unsigned here); 409 DNSSEC_NO_FOREIGN_KSK when the zone holds no KSK of the other signer (the parent would be left with no DS)",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(WithdrawDnssecDsDocument, { zone: inputs.zone });
      return { body: presentDnssec(data.withdrawDnssecDs) };
    },
  },
  {
    method: 'delete',
    path: '/domain/dnssec/:zone/ds-withdrawn',
    operationId: 'restoreDnssecDs',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "The reverse of POST …/ds-withdrawn: the zone's DS is wanted at the parent again, beside the other signer's (the CDS/CDNSKEY name both; a parent held here holds both DS)",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run(RestoreDnssecDsDocument, { zone: inputs.zone });
      return { body: presentDnssec(data.restoreDnssecDs) };
    },
  },
  dnssecConfirmation(
    'ds-published',
    'confirmDnssecDsPublished',
    "The operator's word that the parent (outside Zonekeeper) serves the zone's DS: after enabling, or a KSK roll's new DS (the keys swap once the DS TTL has passed, RFC 7583 §3.3.2); 409 DNSSEC_NOTHING_TO_CONFIRM when no DS is awaited",
  ),
  dnssecConfirmation(
    'ds-removed',
    'confirmDnssecDsRemoved',
    "The operator's word that the parent (outside Zonekeeper) no longer serves the DS of a zone disabling (RFC 8078 §4): it goes unsigned once the DS TTL and DNSSEC_PROPAGATION_DELAY have passed; 409 DNSSEC_NOTHING_TO_CONFIRM when the zone is not disabling",
  ),
];

/** the OpenAPI schema of a zone's DNSSEC (a component of the document: openapi.ts assembles them) */
export const DNSSEC_SCHEMAS = {
  Dnssec: {
    type: 'object',
    properties: {
      zone: { type: 'string' },
      enabled: { type: 'boolean' },
      state: { enum: ['unsigned', 'signed', 'disabling'] },
      denial: { type: ['string', 'null'], enum: ['NSEC', 'NSEC3', null] },
      nsec3_iterations: { type: ['integer', 'null'] },
      nsec3_opt_out: { type: ['boolean', 'null'] },
      ds: {
        type: 'array',
        items: { type: 'string' },
        description:
          "the DS records of the zone's own KSK for the parent: key tag, algorithm, digest type, digest; empty while withdrawn. A multi-signer zone's parent needs these and each foreign_keys[].ds beside them",
      },
      dnskeys: {
        type: 'array',
        items: { type: 'string' },
        description: "the zone's own published DNSKEYs (for the other signer of a multi-signer zone, RFC 8901, to publish)",
      },
      foreign_keys: {
        type: 'array',
        description: "the other signer's DNSKEYs (multi-signer, RFC 8901 model 2): published in the DNSKEY RRset, named by the CDS",
        items: {
          type: 'object',
          properties: {
            foreign_key_id: { type: 'integer' },
            role: { enum: ['KSK', 'ZSK'] },
            key_tag: { type: 'integer' },
            algorithm: { type: 'string' },
            dnskey: { type: 'string' },
            ds: { type: 'array', items: { type: 'string' }, description: "a KSK's DS (SHA-256) for the parent; empty for a ZSK" },
            source: { enum: ['value', 'fetched'] },
            fetched_from: { type: ['string', 'null'] },
            created_at: { type: 'string', format: 'date-time' },
          },
          required: ['foreign_key_id', 'role', 'key_tag', 'algorithm', 'dnskey', 'ds', 'source', 'created_at'],
        },
      },
      keys: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            key_id: { type: 'integer' },
            key_tag: { type: 'integer' },
            role: { enum: ['KSK', 'ZSK', 'CSK'] },
            algorithm: { type: 'string' },
            state: { enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn'] },
            dnskey: { type: 'string' },
            created_at: { type: 'string', format: 'date-time' },
            published_at: { type: ['string', 'null'], format: 'date-time' },
            ready_at: { type: ['string', 'null'], format: 'date-time' },
            active_at: { type: ['string', 'null'], format: 'date-time' },
            retired_at: { type: ['string', 'null'], format: 'date-time' },
            removed_at: { type: ['string', 'null'], format: 'date-time' },
            next_event: { type: ['string', 'null'] },
            next_event_at: { type: ['string', 'null'], format: 'date-time' },
          },
          required: ['key_id', 'key_tag', 'role', 'algorithm', 'state', 'dnskey', 'created_at'],
        },
      },
      ds_withdrawn_at: {
        type: ['string', 'null'],
        format: 'date-time',
        description:
          "multi-signer, moving out: when the zone withdrew its own DS (POST …/ds-withdrawn); null: it wants it at the parent. While set, the CDS/CDNSKEY name the other signer's KSKs alone and ds is empty",
      },
      disable_at: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'disabling: when the zone goes unsigned (null while the parent still serves its DS)',
      },
      parent_ds: {
        type: ['object', 'null'],
        description: "what the zone waits for of its parent's DS, and the last check at DNSSEC_PARENT_DS_SERVERS",
        properties: {
          in_zonekeeper: { type: 'boolean' },
          waiting_for: { enum: ['NOTHING', 'DS_PUBLICATION', 'DS_REMOVAL'] },
          seen_at: { type: ['string', 'null'], format: 'date-time' },
          checked_at: { type: ['string', 'null'], format: 'date-time' },
          next_check_at: { type: ['string', 'null'], format: 'date-time' },
          last_check: {
            type: ['object', 'null'],
            properties: {
              at: { type: 'string', format: 'date-time' },
              want: { enum: ['present', 'absent'] },
              expected: { type: 'array', items: { type: 'string' } },
              confirmed: { type: 'boolean' },
              servers: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    server: { type: 'string' },
                    ok: { type: 'boolean' },
                    ds: { type: 'array', items: { type: 'string' } },
                    ttl: { type: ['integer', 'null'] },
                    transport: { type: ['string', 'null'] },
                    error: { type: ['string', 'null'] },
                  },
                  required: ['server', 'ok', 'ds'],
                },
              },
            },
            required: ['at', 'want', 'expected', 'confirmed', 'servers'],
          },
        },
        required: ['in_zonekeeper', 'waiting_for'],
      },
      algorithm_roll: {
        type: ['object', 'null'],
        description: 'the algorithm roll under way (RFC 6781 §4.1.4; null: none) and its step',
        properties: {
          from: { enum: ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'] },
          to: { enum: ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'] },
          step: { enum: ['NEW_SIGNATURES', 'NEW_DNSKEYS', 'NEW_DS', 'OLD_DNSKEYS_REMOVED'] },
          next_step_at: {
            type: ['string', 'null'],
            format: 'date-time',
            description: "when the next step is due; null: it waits for the parent's DS",
          },
        },
        required: ['from', 'to', 'step', 'next_step_at'],
      },
    },
    required: ['zone', 'enabled', 'state', 'ds', 'dnskeys', 'keys'],
  },
};

/** a key's step, as the key events list it */
export const DNSSEC_EVENT_SCHEMAS = {
  DnssecKeyEvent: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      key_id: { type: 'integer' },
      key_tag: { type: 'integer' },
      role: { enum: ['KSK', 'ZSK', 'CSK'] },
      algorithm: { type: 'string' },
      from_state: {
        type: ['string', 'null'],
        enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn', null],
        description: 'null: the step made the key',
      },
      to_state: { enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn'] },
      reason: {
        enum: ['enabled', 'rolled-by-hand', 'lifetime', 'scheduled', 'ds-seen', 'ds-confirmed', 'disabled', 'algorithm-roll'],
      },
      at: { type: 'string', format: 'date-time' },
    },
    required: ['id', 'key_id', 'key_tag', 'role', 'algorithm', 'from_state', 'to_state', 'reason', 'at'],
  },
};
