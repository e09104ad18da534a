// Outbound-safety module: every download the gateway makes on the upstream's behalf goes through here.
import type { Config } from '../config/config.ts';
import type { OutboundPolicy } from './url-policy.ts';

export { forbiddenAddressReason, isForbiddenAddress } from './address-policy.ts';
export { checkUrl, hostAllowed, type OutboundPolicy } from './url-policy.ts';
export { ForbiddenAddressError, systemResolver, type Resolver } from './safe-agent.ts';
export {
  SafeNet,
  createSafeNet,
  type SafeFetchOptions,
  type SafeFetchResult,
  type SafeStreamResult,
} from './safe-fetch.ts';

/** The policy for upstream result files: the configured result hosts, plus trusted origins (demo simulator). */
export function resultDownloadPolicy(
  config: Pick<Config, 'resultHosts' | 'trustedResultOrigins' | 'allowPrivateNetwork'>,
): OutboundPolicy {
  return {
    allowHosts: config.resultHosts,
    trustedOrigins: config.trustedResultOrigins,
    allowPrivate: config.allowPrivateNetwork,
  };
}
