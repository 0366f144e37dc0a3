import { splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

/** wire values (RFC 1876 §2): latitude/longitude in thousandths of an arc second offset by 2^31, altitude in cm + 100000 m */
export interface LOCValue {
  size: number;
  horizontal: number;
  vertical: number;
  latitude: number;
  longitude: number;
  altitude: number;
}

const EQUATOR = 2 ** 31;
const ALTITUDE_BASE = 10000000;

/** centimetres to RFC 1876's one-octet mantissa/exponent form (BIND keeps the most significant digit) */
function precision(cm: number): number {
  let exponent = 0;
  while (exponent < 9 && cm >= 10 ** (exponent + 1)) exponent++;
  return (Math.min(9, Math.floor(cm / 10 ** exponent)) << 4) | exponent;
}

function precisionText(octet: number): string {
  const cm = (octet >> 4) * 10 ** (octet & 0x0f);
  return `${cm % 100 === 0 ? cm / 100 : (cm / 100).toFixed(2)}m`;
}

/** meters with up to two decimals, optional trailing 'm', in centimetres */
function meters(text: string): number | undefined {
  const m = /^(-?[0-9]+)(?:\.([0-9]{1,2}))?m?$/.exec(text);
  if (!m) return undefined;
  const cm = Math.abs(Number(m[1])) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return m[1].startsWith('-') ? -cm : cm;
}

/**
 * The presentation of a LOC value: BIND's (the model's: sizes without decimals where they have none, `1m`; the
 * equator and the prime meridian as N and E) or PowerDNS 4.7's (`1.00m`; S and W there).
 */
function locText(v: LOCValue, style: 'bind' | 'powerdns'): string {
  const angle = (value: number, hemispheres: string) => {
    const offset = value - EQUATOR;
    let a = Math.abs(offset);
    const d = Math.floor(a / 3600000);
    a -= d * 3600000;
    const m = Math.floor(a / 60000);
    a -= m * 60000;
    const positive = style === 'bind' ? offset >= 0 : offset > 0;
    return `${d} ${m} ${(a / 1000).toFixed(3)} ${positive ? hemispheres[0] : hemispheres[1]}`;
  };
  const altitude = ((v.altitude - ALTITUDE_BASE) / 100).toFixed(2);
  const size = style === 'bind' ? precisionText : (octet: number) => `${(((octet >> 4) * 10 ** (octet & 0x0f)) / 100).toFixed(2)}m`;
  return `${angle(v.latitude, 'NS')} ${angle(v.longitude, 'EW')} ${altitude}m ${size(v.size)} ${size(v.horizontal)} ${size(v.vertical)}`;
}

/**
 * LOC: a location (RFC 1876): `d [m [s]] N|S d [m [s]] E|W alt[m] [size[m] [hp[m] [vp[m]]]]`, defaults
 * size 1m, horizontal precision 10000m, vertical 10m (§3). Stored in BIND's written form.
 */
export const LOC: RecordTypeDefinition<LOCValue> = {
  type: 'LOC',
  code: 29,
  rfcs: ['RFC 1876 §2', 'RFC 1876 §3'],
  fields: [
    { name: 'latitude', description: 'degrees 0–90 [minutes [seconds with up to 3 decimals]] N or S', tokens: 4 },
    { name: 'longitude', description: 'degrees 0–180 [minutes [seconds]] E or W', tokens: 4 },
    { name: 'altitude', description: 'meters, -100000.00 to 42849672.95, optional m' },
    { name: 'size-and-precision', description: 'optional: size, horizontal and vertical precision in meters (defaults 1m 10000m 10m)' },
  ],
  parse(rdata: string): ParseResult<LOCValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const f = split.fields.map((x) => x.raw);
    const problems: Problem[] = [];
    const bad = (why: string): ParseResult<LOCValue> => ({
      ok: false,
      problems: [problem('rdata', 'LOC_INVALID', `rdata: LOC ${why} (RFC 1876 §3)`)],
    });
    let i = 0;
    const angle = (maxDegrees: number, hemispheres: string): number | undefined => {
      const parts: string[] = [];
      while (i < f.length && parts.length < 3 && !hemispheres.includes(f[i].toUpperCase())) parts.push(f[i++]);
      const hemisphere = f[i++]?.toUpperCase();
      if (!parts.length || hemisphere === undefined || !hemispheres.includes(hemisphere)) return undefined;
      const [d, m = '0', s = '0'] = parts;
      if (!/^[0-9]+$/.test(d) || !/^[0-9]+$/.test(m) || !/^[0-9]+(\.[0-9]{1,3})?$/.test(s)) return undefined;
      const thousandths = (Number(d) * 60 + Number(m)) * 60 * 1000 + Math.round(Number(s) * 1000);
      if (Number(d) > maxDegrees || Number(m) > 59 || Number(s) >= 60 || thousandths > maxDegrees * 3600000) return undefined;
      return hemisphere === hemispheres[0] ? EQUATOR + thousandths : EQUATOR - thousandths;
    };
    const latitude = angle(90, 'NS');
    if (latitude === undefined) return bad('latitude is not degrees 0–90 [minutes [seconds]] followed by N or S');
    const longitude = angle(180, 'EW');
    if (longitude === undefined) return bad('longitude is not degrees 0–180 [minutes [seconds]] followed by E or W');
    const altitudeCm = i < f.length ? meters(f[i++]) : undefined;
    if (altitudeCm === undefined || altitudeCm < -ALTITUDE_BASE || altitudeCm + ALTITUDE_BASE > 0xffffffff)
      return bad('altitude is not meters from -100000.00 to 42849672.95');
    const rest = f.slice(i);
    if (rest.length > 3) return bad('has more than size, horizontal and vertical precision after the altitude');
    const defaults = [100, 1000000, 1000];
    const sizes: number[] = [];
    for (const [k, text] of rest.entries()) {
      const cm = meters(text);
      if (cm === undefined || cm < 0 || cm > 9000000000)
        return bad(
          `${['size', 'horizontal precision', 'vertical precision'][k]} ${JSON.stringify(text)} is not meters from 0 to 90000000.00`,
        );
      sizes.push(cm);
    }
    const [size, horizontal, vertical] = defaults.map((d, k) => precision(sizes[k] ?? d));
    return finish(problems, () => ({ size, horizontal, vertical, latitude, longitude, altitude: altitudeCm + ALTITUDE_BASE }), LOC.format);
  },
  format: (v) => locText(v, 'bind'),
  // PowerDNS 4.7 writes each size and precision with two decimals (`1.00m`) and the equator and the prime
  // meridian themselves as S and W
  powerDns: { present: (v) => locText(v, 'powerdns') },
  fromWire: (r) => {
    // RFC 1876 §2: only VERSION 0 is defined
    if (r.u8() !== 0) r.malformed('LOC RDATA of a version other than 0');
    return { size: r.u8(), horizontal: r.u8(), vertical: r.u8(), latitude: r.u32(), longitude: r.u32(), altitude: r.u32() };
  },
  // VERSION 0 (RFC 1876 §2)
  toWire: (v, w) => {
    w.u8(0).u8(v.size).u8(v.horizontal).u8(v.vertical).u32(v.latitude).u32(v.longitude).u32(v.altitude);
  },
};
