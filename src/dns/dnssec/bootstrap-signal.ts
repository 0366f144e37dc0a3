/**
 * Authenticated DNSSEC bootstrapping (RFC 9615): the names where a child zone's operator signals the child's
 * CDS/CDNSKEY under each of the child's nameserver names, so that a parent (or registry) can take the first DS
 * from a zone whose signatures it can already validate.
 *
 * The signalling name of child `Z` under nameserver `N` is `_dsboot.<Z>._signal.<N>`: the signalling domain
 * `_signal.<N>` (RFC 9615 §3.1) with the child's name and the `_dsboot` label before it (§3.2, §4.1); the
 * RFC's example (§4.1.1): for the child example.co.uk served by ns1.example.net, ns2.example.org and
 * ns3.example.co.uk, `_dsboot.example.co.uk._signal.ns1.example.net` and `…._signal.ns2.example.org`, none under
 * the in-domain ns3. It is published in the zone that holds `N`, which must be signed for the signal to validate
 * (§3.2: the signalling records are signed with the signalling zone's keys). Plain model: names in, names out.
 */
import { isAtOrBelow, MAX_NAME_OCTETS, nameLabels } from '../name';

/** the leftmost labels of a signalling name: `_dsboot` before the child, `_signal` between child and nameserver */
export const DSBOOT_LABEL = '_dsboot';
export const SIGNAL_LABEL = '_signal';

const bare = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/**
 * `_dsboot.<child>._signal.<nameserver>` (absolute, without the final dot), or undefined when it cannot be a
 * name: over 255 octets in wire form (RFC 1035 §3.1). RFC 9615 §4.4: the protocol does not work for unusually
 * long child or nameserver names; the signal is then not published (and the service says so).
 * Each label of the child and the nameserver is at most 63 octets already (they are names); the two fixed
 * labels are short, so only the whole name's length can fail.
 */
export function signalingName(child: string, nameserver: string): string | undefined {
  const name = `${DSBOOT_LABEL}.${bare(child)}.${SIGNAL_LABEL}.${bare(nameserver)}`;
  // each label and its length octet, and the root's (RFC 1035 §3.1)
  const octets = nameLabels(name).reduce((sum, label) => sum + label.length + 1, 1);
  return octets <= MAX_NAME_OCTETS ? name : undefined;
}

/**
 * Whether a nameserver name lies within the child (the child's apex or below it): a signal there would sit in
 * the child itself, or under it, whose chain of trust is what bootstrapping is to make; RFC 9615 §4.1 leaves
 * such in-domain signalling domains out, and §4.2 has the parent ignore them.
 */
export function nameserverInChild(child: string, nameserver: string): boolean {
  return isAtOrBelow(bare(nameserver), bare(child));
}

/** the record types a signal copies from the child's apex (RFC 9615 §4.1: identical to the apex's RRsets) */
export const SIGNAL_TYPES: ReadonlySet<string> = new Set(['CDS', 'CDNSKEY']);

/** a CDS or CDNSKEY at a signalling owner (`_dsboot.<child>._signal[.<ns>]`, relative to the zone that holds it) */
export function isSignalRecord(record: { owner: string; type: string }): boolean {
  if (!SIGNAL_TYPES.has(record.type)) return false;
  const owner = record.owner.toLowerCase();
  return owner.startsWith(`${DSBOOT_LABEL}.`) && (owner.endsWith(`.${SIGNAL_LABEL}`) || owner.includes(`.${SIGNAL_LABEL}.`));
}

/** the child named by a signalling owner (`_dsboot.<child>._signal[.…]`), or undefined */
export function childOfSignalOwner(owner: string): string | undefined {
  const lower = owner.toLowerCase();
  if (!lower.startsWith(`${DSBOOT_LABEL}.`)) return undefined;
  const rest = lower.slice(DSBOOT_LABEL.length + 1);
  const at = rest.endsWith(`.${SIGNAL_LABEL}`) ? rest.length - SIGNAL_LABEL.length - 1 : rest.lastIndexOf(`.${SIGNAL_LABEL}.`);
  return at > 0 ? rest.slice(0, at) : undefined;
}
