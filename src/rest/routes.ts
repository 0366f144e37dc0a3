import { AUDIT_ROUTES } from './audit-routes';
import { CHANGE_REQUEST_ROUTES } from './change-requests-routes';
import { DNSSEC_ROUTES } from './dnssec-routes';
import { DOMAIN_ROUTES } from './domains-routes';
import { EVENT_ROUTES } from './events-routes';
import { HEALTH_ROUTES } from './health-routes';
import { QUERY_ANALYTICS_ROUTES } from './query-analytics-routes';
import { RECORD_ROUTES } from './records-routes';
import { STEERING_ROUTES } from './steering-routes';
import type { RouteSpec } from './route-spec';
import { TSIG_KEY_ROUTES } from './tsigkeys-routes';
import { USER_ROUTES } from './users-routes';
import { VIEW_ROUTES } from './views-routes';

/**
 * Every route of the REST compatibility layer (docs/decisions.md §1), a file per group of paths: the router
 * serves this table and the OpenAPI document is generated from it. A new group is a file of its own
 * (`<group>-routes.ts`), named here.
 */
export const ROUTES: RouteSpec[] = [
  ...EVENT_ROUTES,
  ...RECORD_ROUTES,
  ...USER_ROUTES,
  ...TSIG_KEY_ROUTES,
  ...AUDIT_ROUTES,
  ...DOMAIN_ROUTES,
  ...QUERY_ANALYTICS_ROUTES,
  ...CHANGE_REQUEST_ROUTES,
  ...DNSSEC_ROUTES,
  ...STEERING_ROUTES,
  ...VIEW_ROUTES,
  ...HEALTH_ROUTES,
];
