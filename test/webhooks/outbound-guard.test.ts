import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkUrlStatically,
  createOutboundAgents,
  createOutboundPolicy,
  guardedPost,
  REFUSED_PRIVATE_ADDRESS,
  resolveTarget,
  TargetRefusedError,
} from '../../src/features/webhooks/outbound/guarded-request.ts';
import {
  isPrivateAddress,
  privateAddressReason,
} from '../../src/features/webhooks/outbound/is-private-address.ts';
import { type Receiver, startReceiver } from './receiver.ts';

const strict = createOutboundPolicy({ allowPrivateTargets: false, allowHosts: [] });
const permissive = createOutboundPolicy({ allowPrivateTargets: true, allowHosts: [] });

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.10', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::FFFF:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['[::1]', 'loopback'],
    // Every form that carries an IPv4 address (issue 11): judged by it, or refused outright.
    ['::ffff:0:127.0.0.1', 'loopback (IPv4 embedded in IPv6)'],
    ['::ffff:0:10.1.2.3', 'private (IPv4 embedded in IPv6)'],
    ['::ffff:0:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private (IPv4 embedded in IPv6)'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:a00:1::1', 'private (IPv4 embedded in IPv6)'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['::8.8.8.8', 'IPv4-compatible'],
    ['::a00:1', 'IPv4-compatible'],
    ['64:ff9b:1::808:808', 'local-use NAT64'],
    ['64:ff9b:1:a00:1::', 'local-use NAT64'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo'],
    // Outside 2000::/3, nothing is global unicast.
    ['::1:0:7f00:1', 'reserved'],
    ['100::1', 'discard-only'],
    ['4000::1', 'reserved'],
  ])('%s is refused (%s)', (address, why) => {
    expect(isPrivateAddress(address)).toBe(true);
    expect(privateAddressReason(address)).toContain(why);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '100.128.0.1',
    '172.32.0.1',
    '198.20.0.1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '::ffff:0:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('%s is public', (address) => {
    expect(privateAddressReason(address)).toBeNull();
  });

  it('refuses what is not an IP address at all', () => {
    expect(isPrivateAddress('example.com')).toBe(true);
    expect(isPrivateAddress('1.2.3')).toBe(true);
  });
});

describe('checkUrlStatically (creation)', () => {
  it.each([
    'https://127.0.0.1/hook',
    'https://10.0.0.5/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00:ec2::254]/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://017700000001/',
  ])('refuses %s', (url) => {
    expect(checkUrlStatically(url, strict)).toMatch(/must not point/);
  });

  it.each([
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/h',
    'https://localhost:8443/h',
  ])('accepts the host name %s: names are judged at delivery, on what they resolve to', (url) => {
    expect(checkUrlStatically(url, strict)).toBeNull();
  });

  it('refuses http:// unless private targets are allowed, and credentials always', () => {
    expect(checkUrlStatically('http://example.com/x', strict)).toMatch(/https/);
    expect(checkUrlStatically('http://example.com/x', permissive)).toBeNull();
    expect(checkUrlStatically('https://u:p@example.com/x', permissive)).toMatch(/credentials/);
    expect(checkUrlStatically('file:///etc/passwd', permissive)).toMatch(/https/);
  });

  it('accepts public https URLs, and private literals on the allow-list', () => {
    expect(checkUrlStatically('https://example.com/hooks?a=1', strict)).toBeNull();
    expect(checkUrlStatically('https://8.8.8.8/hooks', strict)).toBeNull();
    const allow = createOutboundPolicy({
      allowPrivateTargets: false,
      allowHosts: ['10.0.0.0/8', 'hooks.localhost'],
    });
    expect(checkUrlStatically('https://10.20.30.40/x', allow)).toBeNull();
    expect(checkUrlStatically('https://[::ffff:10.1.1.1]/x', allow)).toBeNull();
    expect(checkUrlStatically('https://11.0.0.1/x', allow)).toBeNull();
    expect(checkUrlStatically('https://192.168.0.1/x', allow)).toMatch(/private/);
    expect(checkUrlStatically('https://hooks.localhost/x', allow)).toBeNull();
  });
});

describe('resolveTarget (delivery)', () => {
  it('refuses a host name that resolves to a loopback address (localhost, via the system resolver)', async () => {
    await expect(resolveTarget(new URL('https://localhost:8443/hook'), strict)).rejects.toThrow(
      TargetRefusedError,
    );
    // The message a key holder reads says why, not what the name resolved to (issue 11); the operator's
    // detail does.
    const refusal = await resolveTarget(new URL('https://localhost:8443/hook'), strict).catch((e) => e);
    expect(refusal.message).toMatch(/^Refused: no public address\./);
    expect(refusal.message).not.toMatch(/127\.0\.0\.1|::1|a loopback address/);
    expect(refusal.detail).toMatch(/localhost resolves to (127\.0\.0\.1|::1) \(loopback\)/);
  });

  it('refuses when any of the resolved addresses is private, whichever comes first', async () => {
    const lookup = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
    await expect(resolveTarget(new URL('https://mixed.example/x'), strict, lookup)).rejects.toMatchObject({
      detail: expect.stringMatching(/10\.0\.0\.7/),
    });
    const mapped = async () => [{ address: '::ffff:127.0.0.1', family: 6 }];
    await expect(resolveTarget(new URL('https://mapped.example/x'), strict, mapped)).rejects.toMatchObject({
      detail: expect.stringMatching(/loopback/),
    });
    const translated = async () => [{ address: '::ffff:0:10.1.2.3', family: 6 }];
    await expect(resolveTarget(new URL('https://siit.example/x'), strict, translated)).rejects.toThrow(
      TargetRefusedError,
    );
  });

  it('returns the vetted address of a public name', async () => {
    const lookup = async () => [{ address: '93.184.215.14', family: 4 }];
    await expect(resolveTarget(new URL('https://public.example/x'), strict, lookup)).resolves.toEqual({
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('lets allow-listed names and ranges through, and everything when private targets are allowed', async () => {
    const byName = createOutboundPolicy({ allowPrivateTargets: false, allowHosts: ['localhost'] });
    expect((await resolveTarget(new URL('https://localhost/x'), byName)).address).toBe('127.0.0.1');
    const byRange = createOutboundPolicy({ allowPrivateTargets: false, allowHosts: ['127.0.0.0/8'] });
    expect((await resolveTarget(new URL('https://localhost/x'), byRange)).address).toBe('127.0.0.1');
    expect((await resolveTarget(new URL('http://localhost/x'), permissive)).address).toBe('127.0.0.1');
    await expect(resolveTarget(new URL('http://localhost/x'), byName)).rejects.toThrow(/https/);
  });

  it('reports a name that does not resolve as a private one is, with the lookup failure in the detail only', async () => {
    const refusal = await resolveTarget(new URL('https://no-such-host.invalid/x'), strict).catch((e) => e);
    expect(refusal).toBeInstanceOf(TargetRefusedError);
    expect(refusal.message).toBe(REFUSED_PRIVATE_ADDRESS);
    expect(refusal.detail).toMatch(/DNS lookup of no-such-host\.invalid failed/);
    await expect(resolveTarget(new URL('https://no-such-host.invalid/x'), permissive)).rejects.toThrow(
      /DNS lookup of no-such-host\.invalid failed/,
    );
  });
});

describe('guardedPost', () => {
  let receiver: Receiver;
  const agents = createOutboundAgents(4);
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    agents.destroy();
    await receiver.close();
  });

  it('dials the address it vetted: one lookup per attempt, the socket pinned to its answer', async () => {
    let lookups = 0;
    const lookup = async (host: string) => {
      lookups++;
      expect(host).toBe('pinned.invalid');
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const res = await guardedPost({
      url: `http://pinned.invalid:${receiver.port}/pinned`,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"a":1}'),
      timeoutMs: 2000,
      policy: permissive,
      agents,
      lookup,
    });
    expect(res.status).toBe(200);
    expect(lookups).toBe(1);
    const req = receiver.requests.find((r) => r.path === '/pinned');
    // `.invalid` never resolves through DNS: the request could only arrive through the pinned address.
    expect(req?.headers.host).toBe(`pinned.invalid:${receiver.port}`);
    expect(req?.body).toBe('{"a":1}');
  });

  it('never connects when the guard refuses: the receiver sees nothing', async () => {
    const before = receiver.requests.length;
    await expect(
      guardedPost({
        url: `https://localhost:${receiver.port}/refused`,
        headers: {},
        body: Buffer.from('{}'),
        timeoutMs: 2000,
        policy: strict,
        agents,
      }),
    ).rejects.toThrow(TargetRefusedError);
    expect(receiver.requests.length).toBe(before);
  });
});
