// The official client SDKs pointed at a harness's gateway, without retries (a test sees every answer).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { Harness } from './harness.ts';

export function openaiClient(h: Harness, apiKey: string): OpenAI {
  return new OpenAI({ baseURL: `${h.url}/v1`, apiKey, maxRetries: 0 });
}

export function anthropicClient(h: Harness, apiKey: string): Anthropic {
  return new Anthropic({ baseURL: h.url, apiKey, maxRetries: 0 });
}
