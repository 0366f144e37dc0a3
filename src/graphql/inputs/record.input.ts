import { IsNotEmpty, IsOptional, MaxLength } from 'class-validator';
import { Field, InputType, Int } from 'type-graphql';
import { RecordDataInput } from '../types/record-data';

/** The shape of a record change; what makes it valid DNS is decided by the DNS model in the service. */
@InputType()
export class RecordInput {
  @Field({ description: 'Zone name.' })
  @IsNotEmpty({ message: 'zone is required' })
  @MaxLength(1024, { message: 'zone must be at most 1024 characters' })
  zone!: string;

  @Field({ description: "Owner, relative to the zone ('@' = apex) or absolute inside it." })
  @IsNotEmpty({ message: 'owner is required' })
  @MaxLength(1024, { message: 'owner must be at most 1024 characters' })
  owner!: string;

  @Field({ description: 'Record type (case-insensitive).' })
  @IsNotEmpty({ message: 'type is required' })
  @MaxLength(16, { message: 'type must be at most 16 characters' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'RDATA in presentation form; or give `data` instead (exactly one of the two).' })
  @IsOptional()
  @IsNotEmpty({ message: 'rdata must not be empty' })
  @MaxLength(70000, { message: 'rdata must be at most 70000 characters' })
  rdata?: string | null;

  @Field(() => RecordDataInput, {
    nullable: true,
    description: 'RDATA as typed fields (the member of the record’s type); or give `rdata` instead.',
  })
  data?: RecordDataInput | null;

  @Field(() => Int, {
    description:
      'The TTL: 0 to 2147483647 (RFC 2181 §8), within ALLOWED_TTLS_BEYOND_REST when the operator set it (serverSettings.allowedTtls).',
  })
  ttl!: number;

  @Field(() => String, {
    nullable: true,
    description:
      'The comment of the record’s RRset becomes this ("" removes it; absent, it stays): free text, at most MAX_COMMENT_LENGTH characters (serverSettings.maxCommentLength), kept in the history; no DNS data.',
  })
  comment?: string | null;
}
