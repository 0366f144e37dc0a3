import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { CheckRow } from '../../repositories/steering';
import { checkCondition } from '../../services/steering/decision';
import type { GraphQLContext } from '../context';
import type { SteeredRrsetInput as ServiceRrsetInput } from '../../services/steering/steering-inputs';
import { DomainType } from '../types/domain.type';
import {
  SteeredRrsetType,
  SteeringChangeType,
  SteeringCheckType,
  SteeringCondition,
  SteeringDefaultsType,
  SteeringVantageType,
  SteeringVoteType,
} from '../types/steering.type';
import { SteeredRrsetInput, SteeringCheckInput, SteeringDefaultsInput, SteeringPoolInput } from '../inputs/steering.input';
import { parseId } from '../inputs/ids';

/** pools with their members' check ids read as numbers */
const poolsInput = (pools: SteeringPoolInput[], at: string) =>
  pools.map((pool, p) => ({
    ...pool,
    members: pool.members.map((m, i) => ({
      ...m,
      checkId: m.checkId === null || m.checkId === undefined ? null : parseId(m.checkId, `${at}[${p}].members[${i}].checkId`),
    })),
  }));

/** the input with its members' check ids read as numbers */
const rrsetInput = (input: SteeredRrsetInput): ServiceRrsetInput => ({
  ...input,
  pools: poolsInput(input.pools, 'pools'),
  rules: input.rules?.map((rule, r) => ({ ...rule, pools: rule.pools && poolsInput(rule.pools, `rules[${r}].pools`) })),
});

/** Steering (docs/steering.md): a zone's checks and steered RRsets with their live state, and their changes. */
@Resolver(() => DomainType)
export class SteeringResolver {
  @FieldResolver(() => [SteeringCheckType], { description: 'The zone’s health checks and their live state.', complexity: 5 })
  steeringChecks(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.checksOfZone(ctx, domain);
  }

  @FieldResolver(() => [SteeredRrsetType], {
    description: 'The zone’s steered RRsets, each member with its check’s live state.',
    complexity: 5,
  })
  steeredRrsets(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.rrsetsOfZone(ctx, domain);
  }

  @FieldResolver(() => SteeringDefaultsType, {
    description: 'The zone’s defaults for the checks made for new members of octoDNS dynamic records (setSteeringDefaults).',
  })
  steeringDefaults(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.defaultsOfZone(ctx, domain);
  }

  @Mutation(() => SteeringDefaultsType, {
    description:
      'Replaces the zone’s defaults for the checks made for new members of octoDNS dynamic records (a field not given is unset: the service’s default applies). A check that exists keeps what it has. Needs write access to some record of the zone.',
  })
  setSteeringDefaults(@Arg('zone') zone: string, @Arg('input') input: SteeringDefaultsInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.setDefaults(ctx, zone, input);
  }

  @Mutation(() => SteeringCheckType, { description: 'Adds a health check to a zone; the key must be able to write some record of it.' })
  createSteeringCheck(@Arg('zone') zone: string, @Arg('input') input: SteeringCheckInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.createCheck(ctx, zone, input);
  }

  @Mutation(() => SteeringCheckType, { description: 'Replaces a health check; it starts again from unknown.' })
  updateSteeringCheck(@Arg('id', () => ID) id: string, @Arg('input') input: SteeringCheckInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.updateCheck(ctx, parseId(id, 'id'), input);
  }

  @Mutation(() => Boolean, { description: 'Deletes a health check no member follows (STEERING_CHECK_IN_USE).' })
  deleteSteeringCheck(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.deleteCheck(ctx, parseId(id, 'id'));
  }

  @Mutation(() => SteeringCheckType, {
    description:
      'Reports an external check’s status (as PowerDNS’s ifurlextup): it holds for leaseSeconds (none: STEERING_EXTERNAL_LEASE), after which the check counts as failing unless reported again. Needs write access to every RRset that follows the check; answers once the served records have moved.',
  })
  reportSteeringStatus(
    @Arg('id', () => ID) id: string,
    @Arg('up') up: boolean,
    @Arg('leaseSeconds', () => Int, { nullable: true }) leaseSeconds: number | null,
    @Arg('message', () => String, { nullable: true, description: 'Why it is down (shown as the check’s last error).' })
    message: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.steering.reportStatus(ctx, parseId(id, 'id'), up, leaseSeconds, message);
  }

  @Mutation(() => SteeredRrsetType, {
    description:
      'Steers an A, AAAA or CNAME RRset: its records become the service’s to decide (what was at the owner and type is replaced). Needs write access to the owner and type.',
  })
  createSteeredRrset(@Arg('zone') zone: string, @Arg('input') input: SteeredRrsetInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.createRrset(ctx, zone, rrsetInput(input));
  }

  @Mutation(() => SteeredRrsetType, { description: 'Replaces a steered RRset’s pools, backup and limits (its owner and type stay).' })
  updateSteeredRrset(@Arg('id', () => ID) id: string, @Arg('input') input: SteeredRrsetInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.updateRrset(ctx, parseId(id, 'id'), rrsetInput(input));
  }

  @Mutation(() => SteeredRrsetType, {
    description: 'Sets the admin status of the RRset’s members with this value: down (paused), up (forced) or obey (its check decides).',
  })
  setSteeringMemberAdmin(
    @Arg('id', () => ID) id: string,
    @Arg('value') value: string,
    @Arg('admin') admin: string,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.steering.setMemberAdmin(ctx, parseId(id, 'id'), value, admin);
  }

  @Mutation(() => Boolean, { description: 'Stops steering the RRset; its served records are removed in the same change.' })
  deleteSteeredRrset(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.deleteRrset(ctx, parseId(id, 'id'));
  }
}

/** a steered RRset's recent changes of what it serves */
@Resolver(() => SteeredRrsetType)
export class SteeredRrsetResolver {
  @FieldResolver(() => [SteeringChangeType], {
    description:
      'Its recent changes of what it serves, newest first (its steering.changed events, kept as long as the event feed keeps them).',
    complexity: 5,
  })
  changes(
    @Root() rrset: SteeredRrsetType,
    @Arg('limit', () => Int, { defaultValue: 10, description: '1–100' }) limit: number,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.steering.recentChanges(ctx, rrset, limit);
  }
}

/** a check's condition and its vantages' votes (docs/steering.md, «Vantages and the quorum») */
@Resolver(() => SteeringCheckType)
export class SteeringCheckResolver {
  @FieldResolver(() => SteeringCondition, {
    description: 'What it is, in one word: never UP while its state is held (FROZEN, NO_SOUND_VANTAGE).',
  })
  condition(@Root() check: CheckRow): SteeringCondition {
    return checkCondition(check) as SteeringCondition;
  }

  @FieldResolver(() => [SteeringVoteType], {
    description: 'Each vantage’s last probe of it and its runs (none for an external check); the zones of one level in one statement.',
  })
  votes(@Root() check: CheckRow, @Ctx() ctx: GraphQLContext): Promise<SteeringVoteType[]> {
    return ctx.loaders.steeringVotesOfZone.load(check.domainId).then((votes) => votes.filter((v) => v.checkId === check.id));
  }
}

/** the vantages the checks are probed from */
@Resolver()
export class SteeringVantagesResolver {
  @Query(() => [SteeringVantageType], {
    description:
      'The vantages the steering checks are probed from (docs/steering.md), seen within the last day, the live ones first, each with whether it is isolated and why. The operator’s (the admin key): a zone’s owner sees an isolated vantage’s effect on its checks (SteeringCheck.votes, attention.steering).',
  })
  steeringVantages(@Ctx() ctx: GraphQLContext) {
    return ctx.services.steering.vantages(ctx);
  }
}
