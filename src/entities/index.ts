import { ApiKey } from './api-key.entity';
import { AuditEvent } from './audit-event.entity';
import { CatalogState } from './catalog-state.entity';
import { Change } from './change.entity';
import { Domain } from './domain.entity';
import { Record } from './record.entity';
import { TsigKeyEntity } from './tsig-key.entity';
import { User } from './user.entity';
import { ZoneServerStatus } from './zone-server-status.entity';

export { ApiKey, AuditEvent, CatalogState, Change, Domain, Record, TsigKeyEntity, User, ZoneServerStatus };
export const ENTITIES = [User, Domain, Record, ApiKey, Change, CatalogState, ZoneServerStatus, TsigKeyEntity, AuditEvent];
