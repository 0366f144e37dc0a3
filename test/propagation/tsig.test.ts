/** TSIG (RFC 8945) sign / verify on the wire, including the error cases of §5.2. */
import dnsPacket from 'dns-packet';
import { findTsig, signMessage, TSIG_ERROR, verifyMessage } from '../../src/dns/wire';

const key = { name: 'test-key', algorithm: 'hmac-sha256' as const, secret: Buffer.alloc(32, 7) };
const query = () =>
  dnsPacket.encode({ id: 4242, type: 'query', flags: 0, questions: [{ name: 'example.com', type: 'AXFR', class: 'IN' }] });

test('a signed request verifies; the TSIG RR is the last additional record with the original ID', () => {
  const { message, mac } = signMessage(query(), key);
  expect(mac.length).toBe(32);
  expect(message.readUInt16BE(10)).toBe(1);
  const found = findTsig(message)!;
  expect(found.tsig).toMatchObject({ keyName: 'test-key', algorithm: 'hmac-sha256', originalId: 4242, error: 0, fudge: 300 });
  expect(verifyMessage(message, key)).toMatchObject({ status: 'ok' });
  // dns-packet still decodes it (opaque type 250)
  expect(dnsPacket.decode(message).additionals![0].type).toBe('TSIG');
});

test('errors: unsigned, BADKEY, BADSIG, BADTIME', () => {
  expect(verifyMessage(query(), key)).toEqual({ status: 'unsigned' });
  const { message } = signMessage(query(), key);
  expect(verifyMessage(message, { ...key, name: 'other' })).toMatchObject({ status: 'error', error: TSIG_ERROR.BADKEY });
  expect(verifyMessage(message, undefined)).toMatchObject({ status: 'error', error: TSIG_ERROR.BADKEY });
  expect(verifyMessage(message, { ...key, secret: Buffer.alloc(32, 8) })).toMatchObject({ status: 'error', error: TSIG_ERROR.BADSIG });
  const tampered = Buffer.from(message);
  tampered[13] ^= 1; // a byte of the question name
  expect(verifyMessage(tampered, key)).toMatchObject({ status: 'error', error: TSIG_ERROR.BADSIG });
  const old = signMessage(query(), key, { time: Math.floor(Date.now() / 1000) - 3600 }).message;
  expect(verifyMessage(old, key)).toMatchObject({ status: 'error', error: TSIG_ERROR.BADTIME });
});

test('responses are verified against the request MAC, and multi-message MACs chain (§5.3.1)', () => {
  const request = signMessage(query(), key);
  const answer = dnsPacket.encode({
    id: 4242,
    type: 'response',
    flags: 0,
    questions: [{ name: 'example.com', type: 'AXFR', class: 'IN' }],
  });
  const first = signMessage(answer, key, { requestMac: request.mac });
  expect(verifyMessage(first.message, key, { requestMac: request.mac })).toMatchObject({ status: 'ok' });
  expect(verifyMessage(first.message, key, { requestMac: Buffer.alloc(32) })).toMatchObject({ status: 'error', error: TSIG_ERROR.BADSIG });
  const second = signMessage(answer, key, { priorMac: first.mac });
  expect(second.mac.equals(first.mac)).toBe(false);
});
