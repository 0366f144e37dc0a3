import { Field, ID, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { KeyPolicy, MAX_RULES } from '../../auth/policy';

/**
 * A key's least-privilege policy in GraphQL (docs/least-privilege.md): the rules and limits given when the key
 * is made, or a preset, and the policy the key has, shown with it (never its secret).
 */
export enum KeyPresetEnum {
  READ_ONLY = 'READ_ONLY',
  ONE_ZONE = 'ONE_ZONE',
  ACME = 'ACME',
}
registerEnumType(KeyPresetEnum, {
  name: 'KeyPreset',
  description:
    'Ready-made policies. READ_ONLY: read (the given zone, or every zone of the user); ONE_ZONE: read and write the given zone; ACME: write TXT at _acme-challenge names (at any depth) only, in the given zone or every zone of the user.',
});

export enum PolicyAccessEnum {
  READ = 'read',
  WRITE = 'write',
}
registerEnumType(PolicyAccessEnum, { name: 'PolicyAccess', description: 'What a rule allows: READ, or WRITE (which includes READ).' });

@InputType()
export class PolicyRuleInput {
  @Field(() => String, { nullable: true, description: 'A zone name; omitted or null: every zone of the key’s user.' })
  zone?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'An owner relative to the zone (`www`, `@` the apex), or `<label>.*`: that leftmost label at any depth (`_acme-challenge.*`); omitted: any owner.',
  })
  owner?: string | null;

  @Field(() => [String], { nullable: true, description: 'Record types; omitted: every type.' })
  types?: string[] | null;

  @Field(() => PolicyAccessEnum)
  access!: PolicyAccessEnum;
}

@InputType()
export class KeyPolicyInput {
  @Field(() => [PolicyRuleInput], {
    nullable: true,
    description: `The rules (at most ${MAX_RULES}); given (even empty), the key is restricted: without a matching rule it may do nothing.`,
  })
  rules?: PolicyRuleInput[] | null;

  @Field(() => Boolean, { nullable: true, description: 'May create zones (a restricted key: false unless set).' })
  mayCreateZones?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'May delete zones its rules let it see.' })
  mayDeleteZones?: boolean | null;

  @Field(() => Boolean, { nullable: true, description: 'May list, create and revoke keys (never one that can do more than itself).' })
  mayManageKeys?: boolean | null;

  @Field(() => Date, { nullable: true, description: 'The key is refused from this time on.' })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: 'The key is refused once unused for this many days.' })
  idleDays?: number | null;

  @Field(() => [String], { nullable: true, description: 'CIDR blocks the key may be used from (HTTP clients, DNS UPDATE and transfers).' })
  allowedNetworks?: string[] | null;
}

/**
 * A new key's policy, the same for an API key and a TSIG key: given whole, or a preset (policyRequest reads
 * it). Each key's create input extends it; not a type of the schema by itself.
 */
@InputType()
export class NewKeyPolicyInput {
  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'Rules, flags and limits (docs/least-privilege.md); omitted: an unrestricted key.',
  })
  policy?: KeyPolicyInput | null;

  @Field(() => KeyPresetEnum, {
    nullable: true,
    description: 'A ready-made policy (with `zone` for ONE_ZONE, optionally for READ_ONLY and ACME).',
  })
  preset?: KeyPresetEnum | null;

  @Field(() => String, { nullable: true, description: 'The zone of the preset.' })
  zone?: string | null;
}

/**
 * A key's new policy, replacing the whole of it, the same for an API key and a TSIG key. Each key's update
 * input extends it; not a type of the schema by itself.
 */
@InputType()
export class KeyPolicyChangeInput {
  @Field(() => KeyPolicyInput, {
    nullable: true,
    description: 'The key’s new policy, replacing its whole policy (docs/least-privilege.md).',
  })
  policy?: KeyPolicyInput | null;

  @Field(() => KeyPresetEnum, { nullable: true, description: 'A ready-made policy replacing the key’s (with `zone` for ONE_ZONE).' })
  preset?: KeyPresetEnum | null;

  @Field(() => String, { nullable: true, description: 'The zone of the preset.' })
  zone?: string | null;
}

@ObjectType('PolicyRule', { simpleResolvers: true })
export class PolicyRuleType {
  @Field(() => String, { nullable: true, description: 'null: every zone of the key’s user' })
  zone!: string | null;

  @Field(() => String, { nullable: true, description: 'null: any owner' })
  owner!: string | null;

  @Field(() => [String], { nullable: true, description: 'null: every type' })
  types!: string[] | null;

  @Field(() => PolicyAccessEnum)
  access!: PolicyAccessEnum;
}

@ObjectType('KeyPolicy', { simpleResolvers: true, description: 'What a key may do (docs/least-privilege.md).' })
export class KeyPolicyType {
  @Field({ description: 'false: the key may do what its user (or the admin) may; true: only what its rules allow.' })
  restricted!: boolean;

  @Field(() => KeyPresetEnum, { nullable: true })
  preset!: KeyPresetEnum | null;

  @Field(() => [PolicyRuleType], { nullable: true, description: 'null for an unrestricted key' })
  rules!: PolicyRuleType[] | null;

  @Field()
  mayCreateZones!: boolean;

  @Field()
  mayDeleteZones!: boolean;

  @Field()
  mayManageKeys!: boolean;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Int, { nullable: true })
  idleDays!: number | null;

  @Field(() => [String], { nullable: true })
  allowedNetworks!: string[] | null;
}

/**
 * What an API key and a TSIG key show alike: its id, when it was made, revoked and last used, and its policy.
 * The ApiKey and TsigKey types extend it; not a type of the schema by itself.
 */
@ObjectType({ simpleResolvers: true })
export abstract class KeyFieldsType {
  @Field(() => ID)
  id!: number;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;

  /** shown as `policy` (KeyPolicyType) by the key's resolver */
  policy!: KeyPolicy;

  @Field(() => Date, { nullable: true, description: 'When the key was last used (written at most once a minute); null: never.' })
  lastUsedAt!: Date | null;
}

/** a stored policy as the KeyPolicy type shows it */
export function policyView(policy: KeyPolicy): KeyPolicyType {
  return {
    restricted: policy.rules !== null,
    preset: policy.preset as KeyPresetEnum | null,
    rules: policy.rules?.map((rule) => ({ ...rule, access: rule.access as PolicyAccessEnum })) ?? null,
    mayCreateZones: policy.mayCreateZones,
    mayDeleteZones: policy.mayDeleteZones,
    mayManageKeys: policy.mayManageKeys,
    expiresAt: policy.expiresAt,
    idleDays: policy.idleDays,
    allowedNetworks: policy.allowedNetworks,
  };
}

/** the policy part of a create-key input, for the services */
export function policyRequest(input: { policy?: KeyPolicyInput | null; preset?: KeyPresetEnum | null; zone?: string | null }) {
  return { policy: input.policy ?? undefined, preset: input.preset ?? undefined, zone: input.zone ?? undefined };
}
