import type { WriteEngine } from '../write-engine';
import type { SettingsKeyVault } from './settings-key-vault';
import type { CdsNotifications } from './cds-notify';

/**
 * What DNSSEC's steps write with (enabling, key rolls, signature refreshes, the parent's DS, the other signers'
 * keys): the write engine every zone change goes through, the vault the zones' keys are sealed in, and the
 * parents' NOTIFY(CDS) this process sent. Made once with the services (services/index.ts); the worker's duties
 * are handed the same.
 */
export interface DnssecWriter {
  readonly engine: WriteEngine;
  readonly keys: SettingsKeyVault;
  readonly cdsNotifications: CdsNotifications;
}
