import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

/** AES-256-GCM for upstream keys and client callback secrets at rest, keyed from TOLLWAY_SECRET. */
export class SecretBox {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHash('sha256').update(`tollway:${secret}`).digest();
  }
  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const enc = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return `v1:${iv.toString('base64')}:${c.getAuthTag().toString('base64')}:${enc.toString('base64')}`;
  }
  /**
   * A deterministic sub-key for one purpose (e.g. the tag of upstream callback addresses), so TOLLWAY_SECRET itself is
   * never reused raw.
   */
  derive(label: string): string {
    return createHmac('sha256', this.key).update(label).digest('hex');
  }
  open(sealed: string): string {
    const [v, iv, tag, enc] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || !enc) throw new Error('unreadable sealed value');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(enc, 'base64')), d.final()]).toString('utf8');
  }
}
