import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Query, registerEnumType, Resolver } from 'type-graphql';
import { SerialScalar } from '../scalars/serial';
import type { GraphQLContext } from '../context';
import { parseId } from '../inputs/ids';
import type { ChangeRequestStatus } from '../../repositories/change-requests';
import { changeSpecs, ZoneChangeInput, ZoneChangesResult } from './zone-changes.resolver';

export enum ChangeRequestStatusEnum {
  PENDING = 'pending',
  APPROVED = 'approved',
  APPLIED = 'applied',
  REJECTED = 'rejected',
  REFUSED = 'refused',
  CANCELLED = 'cancelled',
}
registerEnumType(ChangeRequestStatusEnum, {
  name: 'ChangeRequestStatus',
  valuesConfig: {
    PENDING: { description: 'Waiting for its approvals.' },
    APPROVED: { description: 'Approved (or needing none), waiting for its time, or being applied now.' },
    APPLIED: { description: 'Applied: `appliedSerial` is the serial it made.' },
    REJECTED: { description: 'A reviewer rejected it.' },
    REFUSED: { description: 'Planned again when it was due, it was refused: `conflicts` and `reason` say why.' },
    CANCELLED: { description: 'Cancelled before it was applied.' },
  },
});

enum ChangeReviewVerdictEnum {
  APPROVE = 'approve',
  REJECT = 'reject',
}
registerEnumType(ChangeReviewVerdictEnum, { name: 'ChangeReviewVerdict' });

@ObjectType('ChangeReview', { simpleResolvers: true, description: "A reviewer's approval or rejection of a change request." })
export class ChangeReviewType {
  @Field({ description: "The reviewer's e-mail address." })
  reviewer!: string;

  @Field(() => ChangeReviewVerdictEnum)
  verdict!: ChangeReviewVerdictEnum;

  @Field(() => String, { nullable: true })
  comment!: string | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('ChangeRequestConflict', {
  simpleResolvers: true,
  description: 'An RRset the request changes that moved since the request was planned.',
})
export class ChangeRequestConflictType {
  @Field({ description: "Owner, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field()
  type!: string;
}

@ObjectType('ChangeRequest', {
  simpleResolvers: true,
  description:
    'A change set proposed to a zone that requires approvals, or scheduled for a time (docs/changes.md, «Review», «Scheduled changes»): its plan as it was proposed, its reviews, its status.',
})
export class ChangeRequestType {
  @Field(() => ID)
  id!: number;

  @Field()
  zone!: string;

  @Field(() => ChangeRequestStatusEnum)
  status!: ChangeRequestStatus;

  @Field({ description: "Who proposed it: the person's e-mail address, or the key's name." })
  author!: string;

  @Field(() => SerialScalar, { description: 'The zone serial the request was planned on.' })
  plannedSerial!: number;

  @Field(() => SerialScalar, { nullable: true, description: 'APPLIED: the serial it made.' })
  appliedSerial!: number | null;

  @Field(() => Int, { description: 'The approvals it needs (the zone’s when it was proposed).' })
  requiredApprovals!: number;

  @Field(() => Int, { description: 'The approvals it has.' })
  approvals!: number;

  @Field(() => Date, { nullable: true, description: 'When it is to be applied (null: on its last approval).' })
  scheduledAt!: Date | null;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it was applied, rejected, refused or cancelled.' })
  closedAt!: Date | null;

  @Field(() => [ChangeRequestConflictType], { nullable: true, description: 'REFUSED: the RRsets that moved since it was planned.' })
  conflicts!: ChangeRequestConflictType[] | null;

  @Field(() => String, { nullable: true, description: 'REFUSED: why, in words.' })
  reason!: string | null;

  @Field(() => ZoneChangesResult, {
    description: 'The plan as it was proposed (a dry run’s answer): each RRset before and after, the serial it would make, the warnings.',
  })
  plan!: ZoneChangesResult;

  @Field(() => [ChangeReviewType])
  reviews!: ChangeReviewType[];
}

/** Change requests: review and scheduled changes (services/zones/change-requests.service.ts). */
@Resolver()
export class ChangeRequestsResolver {
  @Query(() => [ChangeRequestType], { description: "A zone's change requests, newest first (`status`: only those)." })
  changeRequests(
    @Arg('zone') zone: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('status', () => [ChangeRequestStatusEnum], { nullable: true }) status?: ChangeRequestStatusEnum[] | null,
    @Arg('first', () => Int, { nullable: true, description: 'At most this many (default 50, at most 500).' }) first?: number | null,
  ) {
    return ctx.services.changeRequests.ofZone(ctx, zone, {
      statuses: status ? (status as string[] as ChangeRequestStatus[]) : undefined,
      first: first ?? undefined,
    });
  }

  @Query(() => ChangeRequestType, { description: 'One change request, with its plan and reviews.' })
  changeRequest(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.changeRequests.get(ctx, parseId(id, 'id'));
  }

  @Mutation(() => ChangeRequestType, {
    description:
      'Proposes a change set as a change request: planned now (refused where a write would be), then applied on its last approval (a zone that requires approvals) or at `at`; a zone that requires none and no `at`: applied now.',
  })
  proposeZoneChange(
    @Arg('zone') zone: string,
    @Arg('changes', () => [ZoneChangeInput], { validate: false }) changes: ZoneChangeInput[],
    @Ctx() ctx: GraphQLContext,
    @Arg('at', () => Date, { nullable: true, description: 'When to apply it (planned again then); null: on its last approval.' })
    at?: Date | null,
  ) {
    return ctx.services.changeRequests.propose(ctx, { zone, changes: changeSpecs(changes), at: at ?? null });
  }

  @Mutation(() => ChangeRequestType, {
    description:
      'Approves a change request (a person of the zone’s account whose role writes the zone, not its author: CHANGE_SELF_APPROVAL); the last approval applies it, or refuses it with its conflicts.',
  })
  approveChangeRequest(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('comment', () => String, { nullable: true }) comment?: string | null,
  ) {
    return ctx.services.changeRequests.review(ctx, parseId(id, 'id'), 'approve', comment ?? null);
  }

  @Mutation(() => ChangeRequestType, { description: 'Rejects a change request, with a comment: it is closed.' })
  rejectChangeRequest(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('comment', () => String, { nullable: true }) comment?: string | null,
  ) {
    return ctx.services.changeRequests.review(ctx, parseId(id, 'id'), 'reject', comment ?? null);
  }

  @Mutation(() => ChangeRequestType, { description: 'Cancels a change request not applied yet: its author, or a reviewer.' })
  cancelChangeRequest(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.changeRequests.cancel(ctx, parseId(id, 'id'));
  }

  @Mutation(() => Int, {
    description:
      'Sets the approvals each change of the zone needs (0: none, at most 10): its owner or an admin of its account. While above 0, a write becomes a change request, or is refused where the edge cannot say so (ZONE_UNDER_REVIEW).',
  })
  setZoneRequiredApprovals(@Arg('zone') zone: string, @Arg('approvals', () => Int) approvals: number, @Ctx() ctx: GraphQLContext) {
    return ctx.services.changeRequests.setRequiredApprovals(ctx, zone, approvals);
  }
}
