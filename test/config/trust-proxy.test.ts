// TOLLWAY_TRUST_PROXY: what the variable accepts, and the client address the one rule (front/address.ts clientAddress)
// takes from the peer and X-Forwarded-For for each setting.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { clientAddress } from '../../src/http/front/address.ts';

const trustOf = (v: string) => loadConfig({ TOLLWAY_TRUST_PROXY: v }).trustProxy;
const refused = (v: string) => {
  try {
    loadConfig({ TOLLWAY_TRUST_PROXY: v });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error(`expected TOLLWAY_TRUST_PROXY=${v} to be refused`);
};

describe('TOLLWAY_TRUST_PROXY values', () => {
  it('is off by default and for false/0/off', () => {
    expect(loadConfig({}).trustProxy).toBeNull();
    for (const v of ['', 'false', '0', 'off', 'FALSE']) expect(trustOf(v), v).toBeNull();
  });

  it('takes a hop count or a list of addresses, CIDRs and range names', () => {
    expect(trustOf('2')).toEqual({ hops: 2 });
    expect(trustOf(' 10.0.0.0/8, 192.168.1.7 ,loopback, fd00::/8 ')).toEqual({
      addresses: ['10.0.0.0/8', '192.168.1.7', 'loopback', 'fd00::/8'],
    });
    // What the variable accepts, the address matcher takes.
    const of = clientAddress(trustOf(' 10.0.0.0/8, 192.168.1.7 ,loopback, fd00::/8 '));
    expect(of('fd00::1', '198.51.100.1')).toBe('198.51.100.1');
  });

  it('refuses "every hop", a huge hop count and what is not an address, naming the variable', () => {
    expect(refused('true')).toMatch(/TOLLWAY_TRUST_PROXY: trusting every hop/);
    expect(refused('100')).toMatch(/TOLLWAY_TRUST_PROXY: a hop count must be between 1 and 32/);
    expect(refused('10.0.0.0/8, proxy.internal')).toMatch(/TOLLWAY_TRUST_PROXY: .*proxy\.internal/);
    expect(refused('10.0.0.0/40')).toMatch(/TOLLWAY_TRUST_PROXY/);
  });
});

describe('the client address', () => {
  it('off: the peer, whatever X-Forwarded-For says', () => {
    const of = clientAddress(null);
    expect(of('10.0.0.5', '198.51.100.1')).toBe('10.0.0.5');
    expect(of(undefined, '198.51.100.1')).toBe('');
  });

  it('a hop count: the address that many hops from the peer; entries a client put further left are not taken', () => {
    const one = clientAddress({ hops: 1 });
    expect(one('10.0.0.5', '198.51.100.1')).toBe('198.51.100.1');
    // The client sent "X-Forwarded-For: 1.2.3.4"; the one proxy appended the address it saw.
    expect(one('10.0.0.5', '1.2.3.4, 198.51.100.1')).toBe('198.51.100.1');
    expect(one('10.0.0.5', undefined)).toBe('10.0.0.5');
    const two = clientAddress({ hops: 2 });
    expect(two('10.0.0.5', '1.2.3.4, 198.51.100.1, 10.0.0.9')).toBe('198.51.100.1');
    // Fewer entries than hops: the left-most there is.
    expect(two('10.0.0.5', '198.51.100.1')).toBe('198.51.100.1');
    // Repeated headers joined; empty entries skipped.
    expect(one('10.0.0.5', ['1.2.3.4', '198.51.100.1 , '])).toBe('198.51.100.1');
  });

  it('trusted addresses: walks right to left while the hop is a trusted proxy; an untrusted peer is the client', () => {
    const of = clientAddress({ addresses: ['10.0.0.0/8', 'loopback'] });
    expect(of('10.0.0.5', '198.51.100.1, 10.1.2.3')).toBe('198.51.100.1');
    expect(of('::ffff:10.0.0.5', '198.51.100.1')).toBe('198.51.100.1');
    expect(of('127.0.0.1', '2001:db8::7')).toBe('2001:db8::7');
    // A client reaching the gateway directly cannot name another address.
    expect(of('198.51.100.1', '10.0.0.1, 203.0.113.9')).toBe('198.51.100.1');
    // Every hop a trusted proxy: the left-most.
    expect(of('10.0.0.5', '10.0.0.7, 10.0.0.8')).toBe('10.0.0.7');
    // What is not an address is not a trusted proxy: it is the client (the sender's text, kept to 100 characters).
    expect(of('10.0.0.5', `${'x'.repeat(300)}, 10.0.0.8`)).toBe('x'.repeat(100));
  });
});
