import { randomBytes } from 'node:crypto';
import { DomainError } from '../../src/errors/catalogue';
import { newSecret, parseSecret } from '../../src/services/events/webhook-secrets';

/** the rule of a webhook secret a caller gives (docs/events.md, «Rotating a secret») */
const refusal = (text: string) => {
  try {
    parseSecret(text);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (text.length > 6) expect(error.message).not.toContain(text.slice(6));
    return { code: error.code, detail: error.details[0].code, field: error.details[0].field, limit: error.details[0].limit };
  }
  return undefined;
};

describe('webhook secrets', () => {
  it('takes whsec_ and the padded base64 of 24 to 64 bytes, as a new one is made', () => {
    for (const bytes of [24, 25, 26, 32, 64]) {
      const bare = randomBytes(bytes);
      expect(parseSecret(`whsec_${bare.toString('base64')}`).bytes).toEqual(bare);
    }
    const made = newSecret();
    expect(parseSecret(made.text).bytes).toEqual(made.bytes);
  });

  it('refuses any other form, and too few or too many bytes, naming the field and its limit', () => {
    const b64 = (bytes: number) => randomBytes(bytes).toString('base64');
    expect(refusal(b64(32))).toEqual({ code: 'INVALID_INPUT', detail: 'INVALID_SECRET', field: 'secret', limit: undefined });
    expect(refusal(`WHSEC_${b64(32)}`)?.detail).toBe('INVALID_SECRET');
    // base64url's - and _, a missing padding, a space inside, a character outside the alphabet
    expect(refusal(`whsec_${randomBytes(32).toString('base64url')}`)?.detail).toBe('INVALID_SECRET');
    expect(refusal(`whsec_${b64(32).replace(/=+$/, '')}`)?.detail).toBe('INVALID_SECRET');
    expect(refusal(`whsec_${b64(16)} ${b64(16)}`)?.detail).toBe('INVALID_SECRET');
    expect(refusal(`whsec_${b64(30)}!`)?.detail).toBe('INVALID_SECRET');
    expect(refusal('whsec_')).toEqual({ code: 'INVALID_INPUT', detail: 'SECRET_TOO_SHORT', field: 'secret', limit: 24 });
    expect(refusal(`whsec_${b64(23)}`)).toEqual({ code: 'INVALID_INPUT', detail: 'SECRET_TOO_SHORT', field: 'secret', limit: 24 });
    expect(refusal(`whsec_${b64(65)}`)).toEqual({ code: 'INVALID_INPUT', detail: 'SECRET_TOO_LONG', field: 'secret', limit: 64 });
  });
});
