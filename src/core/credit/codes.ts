// A redemption code: `twc_` and 24 random base62 characters (about 143 bits), so a plain SHA-256 is a sound stored
// hash, as for tokens. Only the hash and the last characters (to tell codes apart in a list) are kept.
import { hashToken, randomString } from '../../auth/token-secret.ts';

export const CODE_PREFIX = 'twc_';

export const newCode = (): string => `${CODE_PREFIX}${randomString(24)}`;

export const hashCode = (code: string): string => hashToken(code);

/** The last 4 characters, shown as `twc_…abcd`. */
export const hintOf = (code: string): string => code.slice(-4);
