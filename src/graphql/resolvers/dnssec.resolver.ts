import { Arg, Args, ArgsType, Ctx, FieldResolver, ID, Info, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import type { KeyEventInfo } from '../../services/dnssec/dnssec.service';
import {
  AddForeignDnskeysInput,
  DnssecAlgorithmEnum,
  DnssecKeyEventType,
  DnssecRollRoleEnum,
  DnssecStateEnum,
  DnssecType,
  EnableDnssecInput,
} from '../types/dnssec.type';
import { parseId } from '../inputs/ids';
import type { GraphQLResolveInfo } from 'graphql';
import { Connection } from '../types/connection';
import { connection, type ConnectionValue } from '../pages';
import { listComplexity, smallPage } from './paging';
import { SmallPageArgs } from '../inputs/page.args';
import { bindScope } from '../inputs/cursors';

@ObjectType('DnssecKeyEventConnection', { simpleResolvers: true })
class DnssecKeyEventConnection extends Connection(DnssecKeyEventType, 'DnssecKeyEventEdge') {}

@ArgsType()
class DnssecEventsArgs extends SmallPageArgs {}

/** DNSSEC per zone: `Domain.dnssec`, `enableDnssec`, `disableDnssec` (services/dnssec/dnssec.service.ts). */
@Resolver(() => DomainType)
export class DnssecResolver {
  @FieldResolver(() => DnssecType, { description: 'Whether the zone is signed, its keys and the DS to give the parent.', complexity: 5 })
  dnssec(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.status(ctx, { id: domain.id });
  }

  @FieldResolver(() => DnssecKeyEventConnection, {
    description:
      'The zone’s DNSSEC key events, newest first: each step of each key, with why (its history beside `changes`, which leaves the signer’s steps out). Needs read access to the zone’s DNSKEY.',
    complexity: listComplexity,
  })
  dnssecEvents(
    @Root() domain: DomainType,
    @Args() args: DnssecEventsArgs,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ConnectionValue<KeyEventInfo>> {
    // a zone's key events are a list of their own: its cursors page no other zone's
    const scope = bindScope({ list: 'Domain.dnssecEvents', order: 'newest', filter: { zone: domain.id } });
    return connection(
      smallPage(args, scope),
      (request) => ctx.services.dnssec.keyEvents(ctx, domain, request),
      () => ctx.services.dnssec.countKeyEvents(ctx, domain),
      info,
      scope,
    );
  }

  @Mutation(() => DnssecType, {
    description:
      'Signs the zone (one serial step): makes its keys and signs every RRset, with an NSEC or NSEC3 chain. Give the parent one of the answered DS records.',
  })
  enableDnssec(@Arg('input') input: EnableDnssecInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.enable(ctx, {
      zone: input.zone,
      algorithm: input.algorithm ?? undefined,
      denial: input.denial ?? undefined,
      nsec3OptOut: input.nsec3OptOut ?? undefined,
      keyLayout: input.keyLayout ?? undefined,
    });
  }

  @Mutation(() => DnssecType, {
    description:
      'Starts a roll of the zone’s ZSK (pre-publication) or KSK/CSK (double-DS) now (RFC 7583); the worker runs its steps with the TTLs and DNSSEC_PROPAGATION_DELAY honoured.',
  })
  rollDnssecKey(@Arg('zone') zone: string, @Arg('role', () => DnssecRollRoleEnum) role: DnssecRollRoleEnum, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.roll(ctx, zone, role);
  }

  @Mutation(() => DnssecType, {
    description:
      'Starts a roll of the zone to another signing algorithm now (RFC 6781 §4.1.4, RFC 7583 §3.4, conservative): the new keys sign, then are published, then the parent’s DS moves to the new KSK, then the old DNSKEYs and last their signatures go; the worker runs each step after its TTL plus DNSSEC_PROPAGATION_DELAY. One roll at a time (DNSSEC_ROLL_IN_PROGRESS).',
  })
  rollDnssecAlgorithm(
    @Arg('zone') zone: string,
    @Arg('algorithm', () => DnssecAlgorithmEnum) algorithm: DnssecAlgorithmEnum,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.dnssec.rollAlgorithm(ctx, zone, algorithm);
  }

  @Mutation(() => DnssecType, {
    description:
      'Confirms that the parent (outside Zonekeeper) serves the zone’s DS: after enableDnssec, or the new DS of a KSK roll (which swaps the keys once the DS TTL has passed). With DNSSEC_PARENT_DS_SERVERS set, the worker sees it by itself.',
  })
  confirmDnssecDsPublished(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.confirmDsPublished(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'Confirms that the parent (outside Zonekeeper) no longer serves the DS of a zone being unsigned (state disabling): the zone goes unsigned once the DS TTL and DNSSEC_PROPAGATION_DELAY have passed. With DNSSEC_PARENT_DS_SERVERS set, the worker sees it by itself.',
  })
  confirmDnssecDsRemoved(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.confirmDsRemoved(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'Multi-signer (RFC 8901 model 2), to move a signed zone in or out without an insecure moment: publishes the other signer’s DNSKEYs (its ZSK and KSK) in the zone’s DNSKEY RRset, signed by this zone’s KSK; the CDS/CDNSKEY then name both KSKs (and a parent held here gets both DS). Given by value, or read from the other signer’s server (fetchFrom). Keys held already are passed over.',
  })
  addForeignDnskeys(@Arg('input') input: AddForeignDnskeysInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.addForeignDnskeys(ctx, {
      zone: input.zone,
      dnskeys: input.dnskeys ?? undefined,
      fetchFrom: input.fetchFrom ?? undefined,
    });
  }

  @Mutation(() => DnssecType, {
    description:
      'Takes one of the other signer’s DNSKEYs (`DnssecForeignKey.id`) out of the zone’s DNSKEY RRset and CDS/CDNSKEY: when the move is over (docs/dnssec.md, «Moving a signed zone in / out»).',
  })
  removeForeignDnskey(@Arg('zone') zone: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.removeForeignDnskey(ctx, zone, parseId(id, 'id'));
  }

  @Mutation(() => DnssecType, {
    description:
      'Multi-signer, moving out (docs/dnssec.md, «Moving a signed zone in / out», step 4): the zone withdraws its own DS while it still signs. Its CDS/CDNSKEY name the other signer’s KSKs alone (RFC 7344, RFC 8078); its DNSKEYs and signatures stay, so resolvers still holding its DS keep validating; a parent held here holds the other signer’s DS alone at once (dnssec.ds_updated), and keeps it when the zone is then unsigned here. Refused (409 DNSSEC_NO_FOREIGN_KSK) when the zone holds no KSK of the other signer: the parent would be left with no DS.',
  })
  withdrawDnssecDs(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.withdrawDs(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'The reverse of withdrawDnssecDs: the zone’s DS is wanted at the parent again, beside the other signer’s (CDS/CDNSKEY name both; a parent held here holds both DS).',
  })
  restoreDnssecDs(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.restoreDs(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'Stops signing the zone (RFC 8078): it publishes the DS-delete CDS/CDNSKEY and stays signed (state disabling) until the parent’s DS is gone (removed here when the parent is a Zonekeeper zone; otherwise seen gone at DNSSEC_PARENT_DS_SERVERS, or confirmDnssecDsRemoved), then every signer record leaves in one serial step and the keys are destroyed. force: that last step now; a parent that still holds the DS then makes the zone bogus.',
  })
  disableDnssec(
    @Arg('zone') zone: string,
    @Arg('force', () => Boolean, { defaultValue: false, description: 'Unsign now, without waiting for the parent.' }) force: boolean,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.dnssec.disable(ctx, zone, { force });
  }
}

/** A zone's signing state as an enum, beside the string it was first answered as. */
@Resolver(() => DnssecType)
export class DnssecStateResolver {
  @FieldResolver(() => DnssecStateEnum, { description: 'Whether the zone is signed: UNSIGNED, SIGNED or DISABLING (see DnssecState).' })
  status(@Root() dnssec: DnssecType): string {
    return dnssec.state;
  }
}
