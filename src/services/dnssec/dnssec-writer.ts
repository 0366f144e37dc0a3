import type { WriteEngine } from '../write-engine';
import type { SettingsKeyVault } from './settings-key-vault';

/**
 * What DNSSEC's steps write with (enabling, key rolls, signature refreshes, the parent's DS, the other signers'
 * keys): the write engine every zone change goes through, and the vault the zones' keys are sealed in. Both are
 * made once with the services (services/index.ts); the worker's duties are handed the same.
 */
export interface DnssecWriter {
  readonly engine: WriteEngine;
  readonly keys: SettingsKeyVault;
}
