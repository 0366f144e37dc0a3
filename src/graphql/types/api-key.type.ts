import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { KeyFieldsType } from './key-policy.type';

export enum ApiKeyOriginEnum {
  CREATED = 'CREATED',
  API_KEY_SETTING = 'API_KEY_SETTING',
  GENERATED_AT_FIRST_START = 'GENERATED_AT_FIRST_START',
}
registerEnumType(ApiKeyOriginEnum, {
  name: 'ApiKeyOrigin',
  description:
    'CREATED: made through the API for a user; API_KEY_SETTING: the admin key the API_KEY setting sets at each start; GENERATED_AT_FIRST_START: the admin key generated (and printed once) at the first start without API_KEY.',
});

export enum ApiKeyScopeEnum {
  PROPOSE_CHANGES = 'propose',
}
registerEnumType(ApiKeyScopeEnum, {
  name: 'ApiKeyScope',
  description:
    'What a key may do beyond its policy. PROPOSE_CHANGES: a PowerDNS-API write to a zone that requires approvals becomes a change request, answered 202 (docs/powerdns-api.md); without it that write is refused 422.',
});

@ObjectType('ApiKey', { simpleResolvers: true, description: 'An API key; its secret is shown only once, when it is created.' })
export class ApiKeyType extends KeyFieldsType {
  @Field(() => ID, { nullable: true, description: 'The user it acts for; null for the admin key.' })
  userId!: number | null;

  @Field()
  name!: string;

  @Field(() => Date, { nullable: true, description: 'When the key first authenticated a request; null while unused.' })
  firstUsedAt!: Date | null;

  @Field(() => [ApiKeyScopeEnum], { description: 'What the key may do beyond its policy (none: nothing more).' })
  scopes!: ApiKeyScopeEnum[];
}

@ObjectType('CreatedApiKey', { simpleResolvers: true })
export class CreatedApiKeyType {
  @Field(() => ApiKeyType)
  apiKey!: ApiKeyType;

  @Field({ description: 'The key to send as X-API-Key. It is not stored and cannot be shown again.' })
  secret!: string;
}
