/**
 * A zone file of `count` records besides the SOA and NS, as a large real zone holds them: host addresses, and
 * verification and DKIM-like TXT records, about 70 bytes a record (an export of a 71,819-record zone is 5 MB).
 * Made in the test, never committed.
 */
export function largeZoneFile(zone: string, count: number): string {
  const lines = [
    `$ORIGIN ${zone}.`,
    '$TTL 3600',
    '@ IN SOA ns1.example.net. hostmaster.example.net. 2026010101 3600 1800 604800 86400',
    '@ IN NS ns1.example.net.',
    '@ IN NS ns2.example.net.',
  ];
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(6, '0');
    lines.push(
      i % 2 === 0
        ? `host-${n} 300 IN A 198.51.${(i >> 8) & 255}.${i & 255}`
        : `s${n}._domainkey 300 IN TXT "v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQ${n}IDAQAB; t=s"`,
    );
  }
  return `${lines.join('\n')}\n`;
}
