/* eslint-disable */
import * as types from './graphql';
import { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
  '\n  query Zone($name: String!) {\n    domain(name: $name) {\n      id\n      name\n      serial\n      recordCount\n      records {\n        id\n        owner\n        type\n        rdata\n        ttl\n      }\n    }\n  }\n': typeof types.ZoneDocument;
  '\n  mutation ApplyChanges($zone: String!, $changes: [ZoneChangeInput!]!) {\n    applyZoneChanges(zone: $zone, changes: $changes) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n': typeof types.ApplyChangesDocument;
  '\n  mutation CreateRecord($input: RecordInput!) {\n    createRecord(input: $input) {\n      id\n      owner\n      type\n      rdata\n      ttl\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n': typeof types.CreateRecordDocument;
  '\n  mutation RemoveRecord($id: ID!) {\n    removeRecord(id: $id) {\n      id\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n': typeof types.RemoveRecordDocument;
  '\n  subscription ZoneChanged($zone: String!) {\n    zoneChanged(zone: $zone) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n': typeof types.ZoneChangedDocument;
  '\n  query ZonePages($orderBy: DomainOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    domains(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n': typeof types.ZonePagesDocument;
};
const documents: Documents = {
  '\n  query Zone($name: String!) {\n    domain(name: $name) {\n      id\n      name\n      serial\n      recordCount\n      records {\n        id\n        owner\n        type\n        rdata\n        ttl\n      }\n    }\n  }\n':
    types.ZoneDocument,
  '\n  mutation ApplyChanges($zone: String!, $changes: [ZoneChangeInput!]!) {\n    applyZoneChanges(zone: $zone, changes: $changes) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n':
    types.ApplyChangesDocument,
  '\n  mutation CreateRecord($input: RecordInput!) {\n    createRecord(input: $input) {\n      id\n      owner\n      type\n      rdata\n      ttl\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n':
    types.CreateRecordDocument,
  '\n  mutation RemoveRecord($id: ID!) {\n    removeRecord(id: $id) {\n      id\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n':
    types.RemoveRecordDocument,
  '\n  subscription ZoneChanged($zone: String!) {\n    zoneChanged(zone: $zone) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n':
    types.ZoneChangedDocument,
  '\n  query ZonePages($orderBy: DomainOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    domains(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n':
    types.ZonePagesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query Zone($name: String!) {\n    domain(name: $name) {\n      id\n      name\n      serial\n      recordCount\n      records {\n        id\n        owner\n        type\n        rdata\n        ttl\n      }\n    }\n  }\n',
): (typeof documents)['\n  query Zone($name: String!) {\n    domain(name: $name) {\n      id\n      name\n      serial\n      recordCount\n      records {\n        id\n        owner\n        type\n        rdata\n        ttl\n      }\n    }\n  }\n'];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation ApplyChanges($zone: String!, $changes: [ZoneChangeInput!]!) {\n    applyZoneChanges(zone: $zone, changes: $changes) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n',
): (typeof documents)['\n  mutation ApplyChanges($zone: String!, $changes: [ZoneChangeInput!]!) {\n    applyZoneChanges(zone: $zone, changes: $changes) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n'];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation CreateRecord($input: RecordInput!) {\n    createRecord(input: $input) {\n      id\n      owner\n      type\n      rdata\n      ttl\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n',
): (typeof documents)['\n  mutation CreateRecord($input: RecordInput!) {\n    createRecord(input: $input) {\n      id\n      owner\n      type\n      rdata\n      ttl\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n'];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  mutation RemoveRecord($id: ID!) {\n    removeRecord(id: $id) {\n      id\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n',
): (typeof documents)['\n  mutation RemoveRecord($id: ID!) {\n    removeRecord(id: $id) {\n      id\n      domain {\n        id\n        serial\n        recordCount\n        soa {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n'];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  subscription ZoneChanged($zone: String!) {\n    zoneChanged(zone: $zone) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n',
): (typeof documents)['\n  subscription ZoneChanged($zone: String!) {\n    zoneChanged(zone: $zone) {\n      domain {\n        id\n        serial\n        recordCount\n      }\n      change {\n        removedRecordIds\n        records {\n          id\n          owner\n          type\n          rdata\n          ttl\n        }\n      }\n    }\n  }\n'];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(
  source: '\n  query ZonePages($orderBy: DomainOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    domains(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n',
): (typeof documents)['\n  query ZonePages($orderBy: DomainOrder, $first: Int, $after: String, $last: Int, $before: String) {\n    domains(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {\n      edges {\n        cursor\n        node {\n          id\n          name\n        }\n      }\n      pageInfo {\n        hasNextPage\n        hasPreviousPage\n        startCursor\n        endCursor\n      }\n    }\n  }\n'];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> =
  TDocumentNode extends DocumentNode<infer TType, any> ? TType : never;
