import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { redact, redactSecrets, registerSecret } from '../../src/errors/redact.ts';
import { renderFamilyA, renderFamilyB } from '../../src/errors/render.ts';

describe('redaction', () => {
  it('removes registered secrets wherever they appear, even without a recognisable shape', () => {
    registerSecret('plain-secret-value-xyz');
    expect(redact('key=plain-secret-value-xyz;')).toBe('key=[redacted];');
    expect(redactSecrets('a plain-secret-value-xyz b')).toBe('a [redacted] b');
    registerSecret('short'); // too short to register safely: would redact ordinary words
    expect(redact('a short text')).toBe('a short text');
  });

  it('removes DashScope-style keys, bearer credentials and JWTs', async () => {
    const jwt = await new SignJWT({ iss: 'ak' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('k'));
    const out = redact(`sk-abcdef0123456789 / Authorization: Bearer opaque-token-123456 / ${jwt}`);
    expect(out).not.toContain('sk-abcdef0123456789');
    expect(out).not.toContain('opaque-token-123456');
    expect(out).not.toContain(jwt);
    expect(out).toContain('[redacted-jwt]');
  });

  it('removes callback secrets (whsec_…) from client-facing text and log lines alike', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/Yb+Zz9fq1E=';
    for (const out of [redact(`key ${secret} here`), redactSecrets(`key ${secret} here`)]) {
      expect(out).toBe('key [redacted-key] here');
    }
  });

  it('removes URLs and upstream hosts from client-facing text, not from log lines', () => {
    const text =
      'failed at https://dashscope.aliyuncs.com/api/v1/x?Expires=1 and http://10.0.0.5:8080/internal, host api-beijing.klingai.com';
    const out = redact(text);
    expect(out).not.toMatch(/aliyuncs|klingai|10\.0\.0\.5/);
    expect(redactSecrets('GET /v1/models from http://127.0.0.1:1/x')).toContain('http://127.0.0.1:1/x');
  });

  it('renderers apply it to messages and upstream request ids', () => {
    const e = new GatewayError(
      'upstream_error',
      'Upstream said: bad key sk-leakedkey123456 at https://dashscope.aliyuncs.com/x',
      {
        upstreamRequestId: 'id sk-leakedkey123456',
      },
    );
    const b = JSON.stringify(renderFamilyB(e, 'req_1'));
    const a = JSON.stringify(renderFamilyA(e, 'req_1'));
    for (const s of [a, b]) {
      expect(s).not.toContain('sk-leakedkey123456');
      expect(s).not.toContain('aliyuncs');
    }
  });
});
