import { isIPv4, isIPv6 } from 'node:net';

/**
 * Address ranges a webhook may never reach unless the deployment allows it: everything that is not the
 * public internet (RFC 6890 special-purpose registries), plus cloud metadata endpoints. Each entry names why,
 * so a refusal can say which rule matched.
 */
const IPV4_BLOCKED: [cidr: string, why: string][] = [
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade NAT (shared address space)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (includes the 169.254.169.254 metadata service)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved (includes broadcast)'],
];

const IPV6_BLOCKED: [cidr: string, why: string][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing'],
  ['fc00::/7', 'unique local (private; includes the fd00:ec2::254 metadata service)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];

interface Range {
  bytes: Uint8Array;
  bits: number;
  why: string;
}

function parseCidr(cidr: string, why = ''): Range {
  const [address = '', bits = ''] = cidr.split('/');
  const bytes = ipToBytes(address);
  if (!bytes) throw new Error(`Invalid CIDR '${cidr}'`);
  const max = bytes.length * 8;
  const n = bits === '' ? max : Number(bits);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`Invalid CIDR '${cidr}'`);
  return { bytes, bits: n, why };
}

const V4_RANGES = IPV4_BLOCKED.map(([cidr, why]) => parseCidr(cidr, why));
const V6_RANGES = IPV6_BLOCKED.map(([cidr, why]) => parseCidr(cidr, why));

/** 4 bytes for IPv4, 16 for IPv6 (brackets and a zone id are accepted); null when not an IP address. */
export function ipToBytes(input: string): Uint8Array | null {
  let address = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (isIPv4(address)) return Uint8Array.from(address.split('.').map(Number));
  if (!isIPv6(address)) return null;
  // An embedded dotted quad (::ffff:1.2.3.4) is rewritten as its two hex groups (::ffff:102:304).
  const lastColon = address.lastIndexOf(':');
  const last = address.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = last.split('.').map(Number);
    address = `${address.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = parse(rest ?? '');
  const groups =
    rest === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  const full = Math.floor(range.bits / 8);
  for (let i = 0; i < full; i++) if (bytes[i] !== range.bytes[i]) return false;
  const rest = range.bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[full] ?? 0) & mask) === ((range.bytes[full] ?? 0) & mask);
}

/**
 * The IPv4 address an IPv6 address carries and is routed or translated to, for the forms that are judged by
 * it (see privateAddressReason):
 * - `::ffff:a.b.c.d` (IPv4-mapped, RFC 4291): the socket dials the IPv4 address itself;
 * - `::ffff:0:a.b.c.d` (IPv4-translated, RFC 2765 SIIT): a translator forwards it to the IPv4 address;
 * - `64:ff9b::a.b.c.d` (NAT64 well-known prefix, RFC 6052): a NAT64 gateway forwards it;
 * - `2002:AABB:CCDD::/48` (6to4, RFC 3056): a relay tunnels it to the IPv4 address in bits 16–48.
 */
function embeddedIPv4(bytes: Uint8Array): Uint8Array | null {
  const prefixIs = (prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
  const zeros = (n: number) => new Array<number>(n).fill(0);
  if (
    prefixIs([...zeros(10), 0xff, 0xff]) ||
    prefixIs([...zeros(8), 0xff, 0xff, 0, 0]) ||
    prefixIs([0, 0x64, 0xff, 0x9b, ...zeros(8)])
  ) {
    return bytes.slice(12, 16);
  }
  if (prefixIs([0x20, 0x02])) return bytes.slice(2, 6);
  return null;
}

/**
 * Forms that carry an IPv4 address but are refused whatever it is: no public receiver needs them, and where the
 * IPv4 address sits depends on choices this server cannot see.
 * - `::a.b.c.d` (IPv4-compatible, deprecated by RFC 4291; `::` and `::1` are caught before);
 * - `64:ff9b:1::/48` (local-use NAT64, RFC 8215: the operator picks the prefix length, hence the position);
 * - `2001::/32` (Teredo, RFC 4380: server address and obfuscated client address, tunnelled over UDP).
 */
function refusedEmbeddingForm(bytes: Uint8Array): string | null {
  const prefixIs = (prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
  if (prefixIs(new Array<number>(12).fill(0))) return 'IPv4-compatible (deprecated)';
  if (prefixIs([0, 0x64, 0xff, 0x9b, 0, 1])) return 'local-use NAT64';
  if (prefixIs([0x20, 0x01, 0, 0])) return 'Teredo';
  return null;
}

/** 2000::/3, the only IPv6 space allocated for global unicast (RFC 4291, IANA). */
const GLOBAL_UNICAST = parseCidr('2000::/3');

/**
 * Why an IP address must not be dialed (`'loopback'`, `'private'`, …), or null for a public address.
 * IPv4 addresses embedded in IPv6 are judged by the IPv4 address they carry (mapped, RFC 2765 translated,
 * NAT64, 6to4); IPv4-compatible, local-use NAT64 and Teredo addresses are refused outright; any other IPv6
 * address outside global unicast (2000::/3) is refused. Anything that is not an IP address is refused too
 * (`'not an IP address'`): callers pass resolved addresses.
 */
export function privateAddressReason(address: string): string | null {
  const bytes = ipToBytes(address);
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return V4_RANGES.find((r) => inRange(bytes, r))?.why ?? null;
  const special = V6_RANGES.find((r) => r.bits >= 128 && inRange(bytes, r));
  if (special) return special.why;
  const v4 = embeddedIPv4(bytes);
  if (v4) {
    const why = V4_RANGES.find((r) => inRange(v4, r))?.why;
    return why ? `${why} (IPv4 embedded in IPv6)` : null;
  }
  const refused = refusedEmbeddingForm(bytes);
  if (refused) return refused;
  const why = V6_RANGES.find((r) => inRange(bytes, r))?.why;
  if (why) return why;
  return inRange(bytes, GLOBAL_UNICAST) ? null : 'reserved (not IPv6 global unicast)';
}

/** True for any address a webhook may not reach by default (see privateAddressReason). */
export function isPrivateAddress(address: string): boolean {
  return privateAddressReason(address) !== null;
}

/**
 * The deployment's exceptions (WEBHOOKS_ALLOW_HOSTS): host names (exact, case-insensitive, a leading `*.`
 * matches subdomains) and IP addresses or CIDR ranges, whose targets skip the private-address check.
 */
export interface AllowList {
  hosts: string[];
  ranges: Range[];
}

/** Parses allow-list entries; throws on an entry that is neither a host name nor an IP/CIDR. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const list: AllowList = { hosts: [], ranges: [] };
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const address = entry.split('/')[0] ?? '';
    if (ipToBytes(address)) list.ranges.push(parseCidr(entry, 'allow-listed'));
    else if (
      /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(entry)
    ) {
      list.hosts.push(entry.replace(/\.$/, ''));
    } else throw new Error(`'${raw}' is neither a host name nor an IP address or CIDR range`);
  }
  return list;
}

/** The host name is on the allow-list (exactly, or under a `*.` entry). */
export function isHostAllowed(list: AllowList, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return list.hosts.some((entry) =>
    entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry,
  );
}

/** The IP address is inside an allow-listed range (an IPv4-mapped IPv6 address matches IPv4 ranges too). */
export function isAddressAllowed(list: AllowList, address: string): boolean {
  const bytes = ipToBytes(address);
  if (!bytes) return false;
  const v4 = bytes.length === 16 ? embeddedIPv4(bytes) : null;
  return list.ranges.some((r) => inRange(bytes, r) || (v4 !== null && inRange(v4, r)));
}
