// The secrets a client callback is signed with: the owning token's callback secret, and during a rotation's window
// the one it replaced. Read at each delivery attempt, so a retry after a rotation carries the new signature.
import type { SecretBox } from '../auth/secret-box.ts';
import { newCallbackSecret } from '../auth/callback-secret.ts';
import type { TokensRepo } from '../store/repos/tokens.ts';

/** A delivery that cannot be signed; its message names no secret. */
export class CallbackSigningError extends Error {
  override name = 'CallbackSigningError';
}

export interface CallbackSigner {
  /** The `whsec_…` secrets to sign with, current first. */
  secretsFor(tokenId: string, now?: number): Promise<string[]>;
}

export class TokenCallbackSigner implements CallbackSigner {
  constructor(
    private readonly tokens: Pick<TokensRepo, 'callbackSecrets' | 'setCallbackSecretIfNone'>,
    private readonly box: SecretBox,
  ) {}

  async secretsFor(tokenId: string, now = Date.now()): Promise<string[]> {
    let sealed = await this.tokens.callbackSecrets(tokenId, now);
    if (!sealed) throw new CallbackSigningError(`unsigned: token ${tokenId} is unknown`);
    if (sealed.current === null) {
      // A token older than callback secrets: it gets one now (its holder learns it from a rotation).
      await this.tokens.setCallbackSecretIfNone(tokenId, this.box.seal(newCallbackSecret()));
      sealed = await this.tokens.callbackSecrets(tokenId, now);
    }
    const current = this.open(sealed?.current ?? null);
    if (current === null)
      throw new CallbackSigningError(
        `unsigned: the callback secret of token ${tokenId} cannot be read (was TOLLWAY_SECRET changed?); rotate it`,
      );
    // A previous secret sealed under another TOLLWAY_SECRET is simply not used: the current one still signs.
    const previous = this.open(sealed?.previous ?? null);
    return previous === null ? [current] : [current, previous];
  }

  private open(sealed: string | null): string | null {
    if (sealed === null) return null;
    try {
      return this.box.open(sealed);
    } catch {
      return null;
    }
  }
}
