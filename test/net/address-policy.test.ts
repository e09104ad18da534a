import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, isForbiddenAddress } from '../../src/net/address-policy.ts';
import { loadConfig } from '../../src/config/config.ts';
import { resultDownloadPolicy } from '../../src/net/index.ts';
import { checkUrl, hostAllowed } from '../../src/net/url-policy.ts';

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:7f00:1',
    '64:ff9b::a00:1',
    'ff02::1',
  ])('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '47.93.1.2', '172.32.0.1', '172.15.0.1', '100.128.0.1', '2400:3200::1', '::ffff:8.8.8.8'])(
    'allows %s',
    (ip) => {
      expect(forbiddenAddressReason(ip)).toBeNull();
    },
  );

  it('names the metadata range', () => {
    expect(forbiddenAddressReason('169.254.169.254')).toMatch(/metadata/);
  });
});

describe('url policy', () => {
  const policy = {
    allowHosts: ['results.example.com', '*.oss.example.com'],
    trustedOrigins: ['http://127.0.0.1:9999'],
  };

  it('matches exact hosts and wildcard sub-domains only', () => {
    expect(hostAllowed('results.example.com', policy.allowHosts)).toBe(true);
    expect(hostAllowed('RESULTS.example.com.', policy.allowHosts)).toBe(true);
    expect(hostAllowed('a.oss.example.com', policy.allowHosts)).toBe(true);
    expect(hostAllowed('oss.example.com', policy.allowHosts)).toBe(false);
    expect(hostAllowed('evilresults.example.com', policy.allowHosts)).toBe(false);
    expect(hostAllowed('results.example.com.evil.net', policy.allowHosts)).toBe(false);
  });

  it('a `*` inside the first label matches that label only', () => {
    const allow = ['dashscope-*.oss-accelerate.aliyuncs.com'];
    expect(hostAllowed('dashscope-result-sh.oss-accelerate.aliyuncs.com', allow)).toBe(true);
    expect(hostAllowed('DASHSCOPE-A1.oss-accelerate.aliyuncs.com.', allow)).toBe(true);
    expect(hostAllowed('dashscope-.oss-accelerate.aliyuncs.com', allow)).toBe(false);
    expect(hostAllowed('attacker.oss-accelerate.aliyuncs.com', allow)).toBe(false);
    expect(hostAllowed('x.dashscope-a.oss-accelerate.aliyuncs.com', allow)).toBe(false);
    expect(hostAllowed('dashscope-a.oss-accelerate.aliyuncs.com.evil.net', allow)).toBe(false);
    expect(hostAllowed('dashscope-a.oss-accelerateXaliyuncs.com', allow)).toBe(false);
  });

  it('by default, DashScope results on OSS transfer acceleration hosts are downloaded; other buckets there are not', () => {
    const policy = resultDownloadPolicy(loadConfig({}));
    const url =
      'https://dashscope-result-sh.oss-accelerate.aliyuncs.com/1d/ab/20260101/video.mp4?Expires=1767312000&OSSAccessKeyId=x&Signature=y';
    expect(checkUrl(url, policy).url.hostname).toBe('dashscope-result-sh.oss-accelerate.aliyuncs.com');
    expect(() => checkUrl('https://someone-else.oss-accelerate.aliyuncs.com/v.mp4', policy)).toThrow(/allow-list/);
    expect(checkUrl('https://dashscope-result-bj.oss-cn-beijing.aliyuncs.com/v.mp4', policy).privateOk).toBe(false);
  });

  it('requires https unless the origin is trusted or private networks are allowed', () => {
    expect(() => checkUrl('http://results.example.com/a.png', policy)).toThrow(/only https/);
    expect(checkUrl('https://results.example.com/a.png', policy).privateOk).toBe(false);
    expect(checkUrl('http://127.0.0.1:9999/a.png', policy).privateOk).toBe(true);
    expect(checkUrl('http://results.example.com/a.png', { ...policy, allowPrivate: true }).privateOk).toBe(true);
  });

  it('refuses other schemes, credentials, unlisted hosts and forbidden IP literals', () => {
    expect(() => checkUrl('ftp://results.example.com/a', policy)).toThrow(/scheme/);
    expect(() => checkUrl('file:///etc/passwd', policy)).toThrow(/scheme/);
    expect(() => checkUrl('https://u:p@results.example.com/a', policy)).toThrow(/credentials/);
    expect(() => checkUrl('https://client.example.org/a', policy)).toThrow(/allow-list/);
    expect(() => checkUrl('http://127.0.0.1:9998/a', policy)).toThrow(/only https/);
    expect(() => checkUrl('https://169.254.169.254/latest', { allowHosts: ['169.254.169.254'] })).toThrow(/metadata/);
    expect(() => checkUrl('https://[::1]/x', { allowHosts: ['::1'] })).toThrow(/loopback/);
  });
});

// Every IPv6 form that carries an IPv4 address is judged by that address (the private canary reached 9 of
// 29 forms): a translator or relay on the way would deliver to it.
describe('address policy: IPv4 inside IPv6', () => {
  it.each([
    ['IPv4-mapped', '::ffff:10.0.0.1'],
    ['IPv4-mapped, hex', '::ffff:a9fe:a9fe'],
    ['IPv4-compatible', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::a00:1'],
    ['IPv4-compatible, metadata', '::169.254.169.254'],
    ['SIIT', '::ffff:0:127.0.0.1'],
    ['SIIT, hex', '::ffff:0:a00:1'],
    ['NAT64 well-known', '64:ff9b::10.0.0.1'],
    ['NAT64 well-known, hex', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use /96', '64:ff9b:1::a00:1'],
    ['NAT64 local-use /64', '64:ff9b:1:0:a:0:100:0'],
    ['NAT64 local-use /56', '64:ff9b:1:a:0:100::'],
    ['NAT64 local-use /48', '64:ff9b:1:a00:0:100::'],
    ['6to4', '2002:7f00:1::'],
    ['6to4, private', '2002:a00:1::1'],
    ['6to4, metadata', '2002:a9fe:a9fe::1'],
    ['Teredo, client loopback', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo, client private', '2001:0:4136:e378::f5ff:fffe'],
    ['Teredo, client metadata', '2001:0:4136:e378::5601:5601'],
    ['Teredo, server private', '2001:0:a00:1::f7f7:f7f7'],
    ['reserved NAT64', '64:ff9b:2::808:808'],
  ])('refuses %s (%s), naming the IPv4 address', (_form, ip) => {
    expect(forbiddenAddressReason(ip)).toMatch(/address/);
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each([
    ['IPv4-mapped', '::ffff:8.8.8.8'],
    ['IPv4-compatible', '::8.8.8.8'],
    ['SIIT', '::ffff:0:8.8.8.8'],
    ['NAT64 well-known', '64:ff9b::8.8.8.8'],
    ['NAT64 local-use /96', '64:ff9b:1::808:808'],
    ['6to4', '2002:808:808::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
    ['plain global', '2400:3200::1'],
  ])('allows %s (%s) carrying a public address', (_form, ip) => {
    expect(forbiddenAddressReason(ip)).toBeNull();
  });

  it('says which IPv4 address and form it judged', () => {
    expect(forbiddenAddressReason('2002:a9fe:a9fe::1')).toBe(
      'link-local/metadata address (169.254.169.254 in 6to4 form)',
    );
    expect(forbiddenAddressReason('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe(
      'loopback address (127.0.0.1 in Teredo form)',
    );
  });

  it('URL literals: refused by checkUrl however the IPv6 form is written', () => {
    for (const host of ['[::ffff:0:7f00:1]', '[2002:a00:1::]', '[64:ff9b::a00:1]', '[::a00:1]']) {
      expect(() => checkUrl(`https://${host}/x`, { allowHosts: [host.slice(1, -1)] }), host).toThrow(/address/);
    }
  });
});
