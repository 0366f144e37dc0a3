import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { FINDING_CODES } from '../../services/operations/health-checks';

export enum HealthStateEnum {
  unknown = 'unknown',
  ok = 'ok',
  warning = 'warning',
  critical = 'critical',
}
registerEnumType(HealthStateEnum, {
  name: 'HealthState',
  description:
    'unknown: not checked yet; ok: the last check found nothing to act on; warning: a finding to act on; critical: resolvers fail the zone, or may (docs/health.md).',
});

export enum FindingSeverityEnum {
  critical = 'critical',
  warning = 'warning',
  info = 'info',
}
registerEnumType(FindingSeverityEnum, { name: 'FindingSeverity', description: 'How much a finding matters: critical, warning or info.' });

/** the finding codes as a GraphQL enum, each described as docs/health.md describes it */
export const HealthFindingCodeEnum = Object.fromEntries(Object.keys(FINDING_CODES).map((code) => [code, code])) as {
  [K in keyof typeof FINDING_CODES]: K;
};
registerEnumType(HealthFindingCodeEnum, {
  name: 'HealthFindingCode',
  description: 'What a health finding is about (docs/health.md lists what to do about each).',
  valuesConfig: Object.fromEntries(Object.entries(FINDING_CODES).map(([code, description]) => [code, { description }])),
});

@ObjectType('HealthFinding', { simpleResolvers: true, description: 'One thing the last health check found of a zone.' })
export class HealthFindingType {
  @Field(() => HealthFindingCodeEnum)
  code!: string;

  @Field(() => FindingSeverityEnum)
  severity!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The nameserver the finding is about ("name (address)", or a host name), null when it names none.',
  })
  server!: string | null;

  @Field({ description: 'What was found, in words: what the parent or the server answered, and what the zone holds.' })
  message!: string;

  @Field({ description: 'When the finding was first seen; it stays as long as every check since finds it.' })
  since!: Date;
}

@ObjectType('ZoneHealth', {
  simpleResolvers: true,
  description: 'A zone as resolvers meet it: its delegation, DS, nameservers and signatures, checked from the root down (docs/health.md).',
})
export class ZoneHealthType {
  @Field()
  zone!: string;

  @Field(() => Date, { nullable: true, description: 'When the last check ended; null: never checked.' })
  checkedAt!: Date | null;

  @Field(() => HealthStateEnum, { description: 'The worst severity among the findings (ok: none), or unknown before the first check.' })
  state!: string;

  @Field(() => [HealthFindingType], { description: 'The last check’s findings, the most severe first.' })
  findings!: HealthFindingType[];
}

@ObjectType('HealthChecker', {
  simpleResolvers: true,
  description:
    'The health checker itself, not any zone: whether it reaches the root servers it resolves from, and whether zones are checked on a schedule (docs/health.md).',
})
export class HealthCheckerType {
  @Field(() => Boolean, {
    nullable: true,
    description:
      'Whether the root servers (HEALTH_ROOT_HINTS) answered the last check round that asked them; null: no round asked them yet. While false, zones are not checked from the root: they keep their last findings (a zone never checked stays unknown).',
  })
  rootReachable!: boolean | null;

  @Field(() => String, { nullable: true, description: 'Why the root is out of reach, as the last round met it; null while it answers.' })
  rootReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'Since when rootReachable has been what it is.' })
  rootSince!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When a check round last asked the root.' })
  rootNotedAt!: Date | null;

  @Field(() => Int, {
    description:
      'Seconds between two scheduled checks of a zone (HEALTH_CHECK_INTERVAL); 0: no scheduled checks, only those asked for (checkHealth).',
  })
  intervalSeconds!: number;
}
