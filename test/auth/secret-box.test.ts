import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/auth/secret-box.ts';

describe('SecretBox (upstream keys at rest)', () => {
  const box = new SecretBox('a-secret-of-sixteen-plus');

  it('round-trips, with a fresh IV every time', () => {
    const a = box.seal('sk-upstream-key');
    const b = box.seal('sk-upstream-key');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-upstream-key');
    expect(box.open(a)).toBe('sk-upstream-key');
    expect(box.open(b)).toBe('sk-upstream-key');
  });

  it('refuses tampered values and other secrets (authenticated encryption)', () => {
    const sealed = box.seal('sk-upstream-key');
    const [v, iv, tag, enc] = sealed.split(':');
    const flipped = Buffer.from(enc!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([v, iv, tag, flipped.toString('base64')].join(':'))).toThrow();
    expect(() => new SecretBox('another-secret-value').open(sealed)).toThrow();
    expect(() => box.open('garbage')).toThrow();
  });
});
