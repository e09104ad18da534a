import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason, isForbiddenAddress } from '../../src/net/address-policy.ts';
import { loadConfig } from '../../src/config/config.ts';
import { resultDownloadPolicy } from '../../src/net/index.ts';
import { checkUrl, hostAllowed } from '../../src/net/url-policy.ts';

describe('address policy', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1',
    '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1', '64:ff9b::a00:1', 'ff02::1',
  ])('refuses %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '47.93.1.2', '172.32.0.1', '172.15.0.1', '100.128.0.1', '2400:3200::1', '::ffff:8.8.8.8'])('allows %s', (ip) => {
    expect(forbiddenAddressReason(ip)).toBeNull();
  });

  it('names the metadata range', () => {
    expect(forbiddenAddressReason('169.254.169.254')).toMatch(/metadata/);
  });
});

describe('url policy', () => {
  const policy = { allowHosts: ['results.example.com', '*.oss.example.com'], trustedOrigins: ['http://127.0.0.1:9999'] };

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
    const url = 'https://dashscope-result-sh.oss-accelerate.aliyuncs.com/1d/ab/20260101/video.mp4?Expires=1767312000&OSSAccessKeyId=x&Signature=y';
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
