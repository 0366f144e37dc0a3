import type { Settings } from '../../config/settings';
import { DomainError } from '../../errors/catalogue';
import { logger } from '../../logger';
import { KeyVault } from './key-vault';

/**
 * The process's key vault (key-vault.ts), opened from the settings' key-encryption key at its first use: the
 * zones' private keys (the signer, key steps) and the webhooks' secrets (events/webhook-secrets.ts) are sealed
 * in the one vault the services are made with (services/index.ts). Opened late, so that a process whose KEK
 * cannot be read still starts and serves everything but signing: each use then says DNSSEC_UNAVAILABLE, and
 * tries the KEK again.
 */
export class SettingsKeyVault {
  private opened: KeyVault | undefined;

  constructor(private readonly settings: Settings) {}

  /** the vault; DNSSEC_UNAVAILABLE while its key-encryption key cannot be read */
  vault(): KeyVault {
    if (!this.opened) {
      try {
        this.opened = KeyVault.fromSettings(this.settings);
      } catch (error) {
        // the reason names a file or a setting, never the key: the operator's log says it, the API says only
        // that signing is unavailable
        logger.error({ reason: error instanceof Error ? error.message : String(error) }, 'dnssec: the key-encryption key cannot be read');
        throw new DomainError('DNSSEC_UNAVAILABLE');
      }
    }
    return this.opened;
  }
}
