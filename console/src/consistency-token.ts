/** the header a write's answer carries its Consistency-Token in, and a read sends it back in (docs/deployment.md) */
export const CONSISTENCY_TOKEN = 'Consistency-Token';

/** a WAL position's text (`16/B374D848`) as a number that orders; undefined when it is none */
function walPosition(token: string): bigint | undefined {
  const match = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(token.trim());
  return match ? (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`) : undefined;
}

/**
 * The latest Consistency-Token of this console's writes (docs/deployment.md, «Reading from standbys»): each
 * mutation's answer carries the primary's WAL position after its commit, in a header and in
 * `extensions.consistencyToken`; every request sends the latest back, so that a list read right after a save
 * is never answered by a standby that has not replayed the save. Answers may arrive out of order: the later
 * position is kept. (A person's session keeps it on the service too, for a tab opened after the save.)
 */
export class ConsistencyToken {
  private latest: { token: string; position: bigint } | undefined;

  note(token: unknown): void {
    if (typeof token !== 'string') return;
    const position = walPosition(token);
    if (position !== undefined && (!this.latest || position > this.latest.position)) this.latest = { token, position };
  }

  headers(): Record<string, string> {
    return this.latest ? { [CONSISTENCY_TOKEN]: this.latest.token } : {};
  }
}
