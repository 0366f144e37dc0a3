import { graphql } from './generated';

/** the zone page: what the cache holds of a zone and its records */
export const ZoneDocument = graphql(`
  query Zone($name: String!) {
    domain(name: $name) {
      id
      name
      serial
      recordCount
      records {
        id
        owner
        type
        rdata
        ttl
      }
    }
  }
`);

export const ApplyChangesDocument = graphql(`
  mutation ApplyChanges($zone: String!, $changes: [ZoneChangeInput!]!) {
    applyZoneChanges(zone: $zone, changes: $changes) {
      domain {
        id
        serial
        recordCount
      }
      change {
        removedRecordIds
        records {
          id
          owner
          type
          rdata
          ttl
        }
      }
    }
  }
`);

export const CreateRecordDocument = graphql(`
  mutation CreateRecord($input: RecordInput!) {
    createRecord(input: $input) {
      id
      owner
      type
      rdata
      ttl
      domain {
        id
        serial
        recordCount
        soa {
          id
          owner
          type
          rdata
          ttl
        }
      }
    }
  }
`);

export const RemoveRecordDocument = graphql(`
  mutation RemoveRecord($id: ID!) {
    removeRecord(id: $id) {
      id
      domain {
        id
        serial
        recordCount
        soa {
          id
          owner
          type
          rdata
          ttl
        }
      }
    }
  }
`);

export const ZoneChangedDocument = graphql(`
  subscription ZoneChanged($zone: String!) {
    zoneChanged(zone: $zone) {
      domain {
        id
        serial
        recordCount
      }
      change {
        removedRecordIds
        records {
          id
          owner
          type
          rdata
          ttl
        }
      }
    }
  }
`);

/** the zone list, as pages a cache merges by their cursors (Apollo's relayStylePagination): zone-pages.ts */
export const ZonePagesDocument = graphql(`
  query ZonePages($orderBy: DomainOrder, $first: Int, $after: String, $last: Int, $before: String) {
    domains(orderBy: $orderBy, first: $first, after: $after, last: $last, before: $before) {
      edges {
        cursor
        node {
          id
          name
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`);
