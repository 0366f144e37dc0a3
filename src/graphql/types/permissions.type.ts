import { Field, ObjectType } from 'type-graphql';
import { MemberRoleEnum } from './people.type';

@ObjectType('ViewerPermissions', {
  simpleResolvers: true,
  description: 'What the caller may do beyond one zone, as the API decides it (its key’s policy, or the person’s role).',
})
export class ViewerPermissionsType {
  @Field({ description: 'createDomain is allowed (mayCreateZones).' })
  createZone!: boolean;

  @Field({ description: 'deleteDomain is allowed for the zones the caller may see (mayDeleteZones).' })
  deleteZones!: boolean;

  @Field({ description: 'API keys and TSIG keys may be made and revoked (mayManageKeys).' })
  manageKeys!: boolean;

  @Field({
    description:
      'A key that may do everything its account may (no rules, no preset) may be made or revoked: the caller is unrestricted (the account’s owner or unrestricted key, the admin key). A restricted caller (an admin, a key with rules) makes and revokes keys with rules or a preset only, each within its own (FORBIDDEN_BY_POLICY).',
  })
  manageUnrestrictedKeys!: boolean;

  @Field(() => [MemberRoleEnum], {
    description:
      'The roles whose members the caller manages in the account it acts in: invites to, gives and takes, removes (docs/people.md, «Roles»). An owner (the admin key, an operator, an account’s unrestricted key) every one; an admin (a key with mayManageKeys) all but OWNER; anyone else none (FORBIDDEN_BY_ROLE).',
  })
  memberRoles!: MemberRoleEnum[];

  @Field({ description: 'Nameserver sets may be made, changed and zones moved between them (the operator).' })
  manageNameserverSets!: boolean;

  @Field({
    description:
      'The operator’s administration: every account and its quotas, moving zones between accounts, the audit log, the operators (the admin key, or an operator person signed in; docs/people.md, «The operator»).',
  })
  administer!: boolean;

  @Field({
    description:
      'Webhooks may be made, deleted, rotated and redelivered (every key; a person by role: not a viewer, FORBIDDEN_BY_ROLE). The list and the deliveries are read by every member.',
  })
  manageWebhooks!: boolean;
}

@ObjectType('Viewer', { simpleResolvers: true, description: 'The caller (a key or a person signed in) and what it may do.' })
export class ViewerType {
  @Field(() => ViewerPermissionsType)
  can!: ViewerPermissionsType;
}

@ObjectType('ZonePermissions', {
  simpleResolvers: true,
  description:
    'What the caller may do with one zone, as the services decide it (the policy engine, and the rules of the zone: a SECONDARY zone is written only by its transfers). A screen offers what is true here; each write is still decided when it is made.',
})
export class ZonePermissionsType {
  @Field({ description: 'Some records of the zone may be added, changed or removed (each record: Record.permissions).' })
  editRecords!: boolean;

  @Field({ description: 'The apex SOA’s fields may be changed.' })
  editSoa!: boolean;

  @Field({ description: 'The zone may be deleted.' })
  deleteZone!: boolean;

  @Field({ description: 'DNSSEC may be enabled, rolled and disabled (write access to the apex DNSKEY; a PRIMARY zone).' })
  manageDnssec!: boolean;

  @Field({ description: 'promoteZone is allowed (a SECONDARY zone, write access to all of it).' })
  promote!: boolean;

  @Field({ description: 'setZoneSecondaries is allowed (write access to all of the zone).' })
  manageExtraSecondaries!: boolean;

  @Field({ description: 'The zone may be offered to another account (the owner of its account).' })
  moveZone!: boolean;

  @Field(() => [String], { description: 'Record types never deleted on their own (the SOA: delete the zone instead).' })
  undeletableTypes!: string[];

  @Field({
    description:
      'The zone’s change requests may be approved and rejected: a person signed in whose role in the zone’s account writes it (owner, admin, editor), or an operator; never a key (docs/changes.md, «Review»).',
  })
  reviewChanges!: boolean;
}

@ObjectType('RecordPermissions', { simpleResolvers: true, description: 'What the caller may do with one record.' })
export class RecordPermissionsType {
  @Field({ description: 'The record may be changed (and disabled): the zone is a PRIMARY and the caller may write at its owner and type.' })
  edit!: boolean;

  @Field({ description: 'The record may be deleted: as `edit`, and its type is not one never deleted on its own (the SOA).' })
  delete!: boolean;
}
