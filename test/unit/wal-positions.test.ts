import { parseLsn } from '../../src/db/read-replicas';

/**
 * A Consistency-Token is a pg_lsn's text (`16/B374D848`: two 32-bit halves in hex, as PostgreSQL writes it); the
 * standby is waited for while its replay position is below the token's, so the order must be the WAL's.
 */
describe('WAL positions of consistency tokens', () => {
  it('reads a pg_lsn in either case, with or without leading zeros', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(parseLsn('16/b374d848')).toBe(parseLsn('16/B374D848'));
    expect(parseLsn('00000016/0B374D84')).toBe((0x16n << 32n) | 0x0b374d84n);
    expect(parseLsn('FFFFFFFF/FFFFFFFF')).toBe(2n ** 64n - 1n);
  });

  it('orders positions as the WAL does: the high half first, then the low half as a number, not as text', () => {
    expect(parseLsn('1/0')! > parseLsn('0/FFFFFFFF')!).toBe(true);
    // as text "0/9" > "0/10"; as positions the other way round
    expect(parseLsn('0/10')! > parseLsn('0/9')!).toBe(true);
  });

  it('takes nothing else for a position: a token that is none goes to the primary', () => {
    for (const text of ['', ' ', '16', '16/', '/B374D848', '16/B374D848/1', 'G/0', '123456789/0', '0/123456789', '-1/0', null, undefined])
      expect(parseLsn(text)).toBeUndefined();
  });
});
