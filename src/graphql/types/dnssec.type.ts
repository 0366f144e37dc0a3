import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum DnssecAlgorithmEnum {
  ECDSAP256SHA256 = 'ECDSAP256SHA256',
  ED25519 = 'ED25519',
  RSASHA256 = 'RSASHA256',
}
registerEnumType(DnssecAlgorithmEnum, {
  name: 'DnssecAlgorithm',
  description:
    'ECDSAP256SHA256 (13, the default, RFC 6605), ED25519 (15, RFC 8080), RSASHA256 (8, RFC 5702): what RFC 8624 says to sign with.',
});

/** a zone's signing state, as the service stores it (lower case) and GraphQL names it */
export enum DnssecStateEnum {
  UNSIGNED = 'unsigned',
  SIGNED = 'signed',
  DISABLING = 'disabling',
}
registerEnumType(DnssecStateEnum, {
  name: 'DnssecState',
  description: 'Whether a zone is signed (docs/dnssec.md).',
  valuesConfig: {
    UNSIGNED: { description: 'Not signed.' },
    SIGNED: { description: 'Signed: its DNSKEY, RRSIG and NSEC or NSEC3 records are served.' },
    DISABLING: {
      description:
        'Signing ends: the DS-delete CDS/CDNSKEY are published (RFC 8078) and the zone stays signed until the parent’s DS is gone.',
    },
  },
});

export enum DnssecDenialEnum {
  NSEC = 'NSEC',
  NSEC3 = 'NSEC3',
}
registerEnumType(DnssecDenialEnum, {
  name: 'DnssecDenial',
  description:
    'Authenticated denial of existence: NSEC (RFC 4034, the default) or NSEC3 (RFC 5155) with 0 extra iterations and no salt (RFC 9276).',
});

export enum DnssecKeyLayoutEnum {
  KSK_ZSK = 'KSK_ZSK',
  CSK = 'CSK',
}
registerEnumType(DnssecKeyLayoutEnum, {
  name: 'DnssecKeyLayout',
  description: 'KSK_ZSK (the default): a key-signing key for the DNSKEY RRset and a zone-signing key for the rest; CSK: one combined key.',
});

export enum DnssecRollRoleEnum {
  ZSK = 'ZSK',
  KSK = 'KSK',
}
registerEnumType(DnssecRollRoleEnum, {
  name: 'DnssecRollRole',
  description: 'ZSK: the zone-signing key, by pre-publication; KSK: the key-signing key (or the CSK), by double-DS.',
});

@InputType('EnableDnssecInput')
export class EnableDnssecInput {
  @Field({ description: 'The zone, by name.' })
  zone!: string;

  @Field(() => DnssecAlgorithmEnum, { nullable: true, description: 'Default ECDSAP256SHA256.' })
  algorithm?: DnssecAlgorithmEnum | null;

  @Field(() => DnssecDenialEnum, { nullable: true, description: 'Default NSEC.' })
  denial?: DnssecDenialEnum | null;

  @Field(() => Boolean, { nullable: true, description: 'NSEC3 opt-out (RFC 5155 §6): insecure delegations are left out of the chain.' })
  nsec3OptOut?: boolean | null;

  @Field(() => DnssecKeyLayoutEnum, { nullable: true, description: 'Default KSK_ZSK.' })
  keyLayout?: DnssecKeyLayoutEnum | null;
}

@InputType('AddForeignDnskeysInput', {
  description:
    'The other signer’s DNSKEYs (multi-signer, RFC 8901 model 2): by value, or read from its server. Exactly one of dnskeys and fetchFrom.',
})
export class AddForeignDnskeysInput {
  @Field({ description: 'The zone, by name.' })
  zone!: string;

  @Field(() => [String], {
    nullable: true,
    description:
      'DNSKEYs in presentation form: the RDATA (`257 3 13 base64…`) or the whole record (`example.com. 3600 IN DNSKEY 257 3 13 base64…`); flags 256 (ZSK) or 257 (KSK), the zone’s algorithm.',
  })
  dnskeys?: string[] | null;

  @Field(() => String, {
    nullable: true,
    description:
      'The IP address (port 53 unless given: 192.0.2.1:5300, [2001:db8::1]:53) of the other signer’s server to ask for its DNSKEY RRset; our own keys in its answer are passed over. Loopback and private addresses need DNSSEC_FOREIGN_KEYS_FETCH_ALLOW.',
  })
  fetchFrom?: string | null;
}

@ObjectType('DnssecForeignKey', {
  simpleResolvers: true,
  description:
    'A DNSKEY of the zone’s other signer (multi-signer, RFC 8901 model 2): published in the zone’s DNSKEY RRset beside its own keys and signed by its KSK; it never signs here.',
})
export class DnssecForeignKeyType {
  @Field(() => ID)
  id!: number;

  @Field({ description: 'KSK (flags 257) or ZSK (flags 256).' })
  role!: string;

  @Field(() => Int, { description: 'The key tag (RFC 4034 Appendix B).' })
  keyTag!: number;

  @Field({ description: 'The algorithm mnemonic.' })
  algorithm!: string;

  @Field({ description: 'The DNSKEY RDATA, presentation form.' })
  dnskey!: string;

  @Field(() => [String], { description: 'A KSK’s DS (SHA-256) for the parent, which the zone’s CDS names too; empty for a ZSK.' })
  ds!: string[];

  @Field({ description: 'value (given) or fetched (read from the other signer’s server).' })
  source!: string;

  @Field(() => String, { nullable: true, description: 'The server it was read from (address:port).' })
  fetchedFrom!: string | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('DnssecKey', {
  simpleResolvers: true,
  description: 'A signing key of a zone (its private part never leaves the service). Times of each RFC 7583 step.',
})
export class DnssecKeyType {
  @Field(() => ID)
  id!: number;

  @Field(() => Int, { description: 'The key tag (RFC 4034 Appendix B).' })
  keyTag!: number;

  @Field({ description: 'KSK, ZSK or CSK.' })
  role!: string;

  @Field({ description: 'The algorithm mnemonic.' })
  algorithm!: string;

  @Field({
    description:
      'generated (its DS goes to the parent first), published, ready, active, retired or removed (RFC 7583 §3.1); in an algorithm roll also signing (signs, its DNSKEY not yet published) and withdrawn (signs, its DNSKEY gone).',
  })
  state!: string;

  @Field({ description: 'The DNSKEY RDATA, presentation form.' })
  dnskey!: string;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  publishedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  readyAt!: Date | null;

  @Field(() => Date, { nullable: true })
  activeAt!: Date | null;

  @Field(() => Date, { nullable: true })
  retiredAt!: Date | null;

  @Field(() => Date, { nullable: true })
  removedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'The next planned step of the key, if any.' })
  nextEvent!: string | null;

  @Field(() => Date, {
    nullable: true,
    description:
      'When the next step is planned; null when none is, and while the key waits for the parent’s DS (nextEvent await-ds: the step comes once the parent serves it).',
  })
  nextEventAt!: Date | null;
}

@ObjectType('DnssecParentDsAnswer', { simpleResolvers: true, description: "What one of the parent's servers answered for the zone's DS." })
export class DnssecParentDsAnswerType {
  @Field({ description: 'address:port, as DNSSEC_PARENT_DS_SERVERS names it.' })
  server!: string;

  @Field({ description: 'The server answered with authority (NOERROR or NXDOMAIN).' })
  ok!: boolean;

  @Field(() => [String], { description: 'The DS records it served, presentation form.' })
  ds!: string[];

  @Field(() => Int, { nullable: true, description: 'The TTL of that DS RRset.' })
  ttl?: number | null;

  @Field(() => String, { nullable: true, description: 'udp, or tcp when the UDP answer was truncated.' })
  transport?: string | null;

  @Field(() => String, { nullable: true, description: 'Why the answer could not count (timeout, REFUSED, no authority).' })
  error?: string | null;
}

@ObjectType('DnssecParentDsCheck', { simpleResolvers: true, description: "The last check of the parent's DS at DNSSEC_PARENT_DS_SERVERS." })
export class DnssecParentDsCheckType {
  @Field()
  at!: Date;

  @Field({ description: 'present (the DS should be served) or absent (it should be gone).' })
  want!: string;

  @Field(() => [String], { description: 'The DS (SHA-256) of each key the parent must serve (SHA-384 counts too).' })
  expected!: string[];

  @Field({ description: 'Every server answered what was awaited.' })
  confirmed!: boolean;

  @Field(() => [DnssecParentDsAnswerType])
  servers!: DnssecParentDsAnswerType[];
}

@ObjectType('DnssecParentDs', { simpleResolvers: true, description: "What a signed zone waits for of its parent's DS." })
export class DnssecParentDsType {
  @Field({ description: 'The parent zone is a Zonekeeper zone: the service writes the DS there itself.' })
  inZonekeeper!: boolean;

  @Field({
    description:
      'NOTHING, DS_PUBLICATION (the DS should appear: DNSSEC enabled, or a KSK roll) or DS_REMOVAL (disabling: the DS should be gone).',
  })
  waitingFor!: string;

  @Field(() => Date, { nullable: true, description: 'When the parent was last seen (or confirmed) to serve the DS.' })
  seenAt!: Date | null;

  @Field(() => Date, { nullable: true })
  checkedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the worker next asks the parent’s servers (null: nothing to ask).' })
  nextCheckAt!: Date | null;

  @Field(() => DnssecParentDsCheckType, { nullable: true })
  lastCheck!: DnssecParentDsCheckType | null;
}

export enum DnssecAlgorithmRollStepEnum {
  NEW_SIGNATURES = 'NEW_SIGNATURES',
  NEW_DNSKEYS = 'NEW_DNSKEYS',
  NEW_DS = 'NEW_DS',
  OLD_DNSKEYS_REMOVED = 'OLD_DNSKEYS_REMOVED',
}
registerEnumType(DnssecAlgorithmRollStepEnum, {
  name: 'DnssecAlgorithmRollStep',
  description:
    'An algorithm roll’s step (RFC 6781 §4.1.4): NEW_SIGNATURES (the new keys sign, their DNSKEYs not yet published; waits the zone’s largest TTL), NEW_DNSKEYS (the new DNSKEYs published; waits the DNSKEY TTL), NEW_DS (the parent’s DS is to name the new KSK; waits for it to be served, then the DS TTL), OLD_DNSKEYS_REMOVED (the old DNSKEYs gone, their signatures kept; waits the DNSKEY TTL, then the old keys and signatures go).',
});

@ObjectType('DnssecAlgorithmRoll', { simpleResolvers: true, description: 'An algorithm roll under way (rollDnssecAlgorithm).' })
export class DnssecAlgorithmRollType {
  @Field(() => DnssecAlgorithmEnum)
  from!: DnssecAlgorithmEnum;

  @Field(() => DnssecAlgorithmEnum)
  to!: DnssecAlgorithmEnum;

  @Field(() => DnssecAlgorithmRollStepEnum)
  step!: DnssecAlgorithmRollStepEnum;

  @Field(() => Date, {
    nullable: true,
    description: 'When the next step is due (each wait plus DNSSEC_PROPAGATION_DELAY); null: it waits for the parent’s DS.',
  })
  nextStepAt!: Date | null;
}

@ObjectType('Dnssec', {
  simpleResolvers: true,
  description: "A zone's DNSSEC: whether it is signed, how, its keys and what to give the parent.",
})
export class DnssecType {
  @Field()
  zone!: string;

  @Field()
  enabled!: boolean;

  @Field({
    description:
      'unsigned, signed or disabling (RFC 8078: the DS-delete CDS/CDNSKEY are published and the zone stays signed until the parent’s DS is gone).',
    deprecationReason: 'Use `status`, the same as the DnssecState enum (since 2026-11-29).',
  })
  state!: string;

  @Field(() => DnssecDenialEnum, { nullable: true })
  denial!: DnssecDenialEnum | null;

  @Field(() => Int, { nullable: true })
  nsec3Iterations!: number | null;

  @Field(() => Boolean, { nullable: true })
  nsec3OptOut!: boolean | null;

  @Field(() => [DnssecKeyType], { description: 'The keys, removed ones included, oldest first.' })
  keys!: DnssecKeyType[];

  @Field(() => [String], {
    description:
      'The DS records of this zone’s own KSK (or CSK) to give the parent (SHA-256 and SHA-384), presentation form: key tag, algorithm, digest type, digest; empty while the zone’s own DS is withdrawn (withdrawDnssecDs). In a multi-signer zone the parent needs these and the other signer’s, `foreignKeys[].ds`, beside them (the zone’s CDS names both).',
  })
  ds!: string[];

  @Field(() => [String], {
    description:
      'This zone’s own published DNSKEYs (ZSK and KSK), presentation form: for a parent that takes DNSKEY, and for the other signer of a multi-signer zone (RFC 8901) to publish. The served DNSKEY RRset holds foreignKeys too.',
  })
  dnskeys!: string[];

  @Field(() => [DnssecForeignKeyType], {
    description:
      'The other signer’s DNSKEYs (multi-signer, RFC 8901 model 2), oldest first: in the served DNSKEY RRset; its KSKs’ DS belong at the parent beside `ds`, and the CDS/CDNSKEY name them.',
  })
  foreignKeys!: DnssecForeignKeyType[];

  @Field(() => Date, {
    nullable: true,
    description:
      'Multi-signer, moving out: when the zone withdrew its own DS from the parent (withdrawDnssecDs); null: it wants it there. While set, the CDS/CDNSKEY name the other signer’s KSKs alone, a parent held here holds their DS alone, and `ds` is empty.',
  })
  dsWithdrawnAt!: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Disabling: when the zone goes unsigned (null while the parent still serves its DS).',
  })
  disableAt!: Date | null;

  @Field(() => DnssecParentDsType, { nullable: true, description: 'What the zone waits for of its parent (null: not signed).' })
  parentDs!: DnssecParentDsType | null;

  @Field(() => DnssecAlgorithmRollType, { nullable: true, description: 'The algorithm roll under way (null: none).' })
  algorithmRoll!: DnssecAlgorithmRollType | null;
}

@ObjectType('DnssecKeyEvent', {
  simpleResolvers: true,
  description:
    'One step of a DNSSEC key of the zone (RFC 7583 §3.1): made, published, active, retired or removed, with why. Recorded in the step’s own transaction; the zone’s changes (`Domain.changes`) do not show the signer’s steps.',
})
export class DnssecKeyEventType {
  @Field(() => ID)
  id!: number;

  @Field(() => ID, { description: 'The key (`DnssecKey.id`); a removed key may be gone from `Domain.dnssec.keys` (DNSSEC disabled).' })
  keyId!: number;

  @Field(() => Int, { description: 'The key tag (RFC 4034 Appendix B).' })
  keyTag!: number;

  @Field({ description: 'KSK, ZSK or CSK.' })
  role!: string;

  @Field({ description: 'The algorithm mnemonic.' })
  algorithm!: string;

  @Field(() => String, { nullable: true, description: 'The state before the step; null when the step made the key.' })
  fromState!: string | null;

  @Field({ description: 'generated, published, ready, active, retired, removed, signing or withdrawn.' })
  toState!: string;

  @Field({
    description:
      'enabled (DNSSEC enabled), rolled-by-hand (rollDnssecKey), lifetime (DNSSEC_ZSK_LIFETIME / DNSSEC_KSK_LIFETIME over), scheduled (the roll’s wait of a TTL plus DNSSEC_PROPAGATION_DELAY passed), ds-seen (the new DS observed served by the parent: a Zonekeeper parent, or the servers of DNSSEC_PARENT_DS_SERVERS asked by the worker), ds-confirmed (an operator’s confirmDnssecDsPublished), disabled (disableDnssec) or algorithm-roll (the new keys of rollDnssecAlgorithm).',
  })
  reason!: string;

  @Field()
  at!: Date;
}
