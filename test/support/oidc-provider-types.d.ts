// The little of oidc-provider (which ships no types) that test/support/oidc-provider.ts uses.
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
  }
}
