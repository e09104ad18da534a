// The standard OpenTelemetry variables that switch tracing on and say where spans go (the exporter reads its own,
// e.g. OTEL_EXPORTER_OTLP_TIMEOUT; the batch processor's settings are not read from OTEL_BSP_*: docs/operations.md).
// Tracing is off unless OTEL_TRACES_EXPORTER=otlp or an OTLP endpoint is set; OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none keep it off.
export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingConfig {
  /** The OTLP/HTTP traces address (spans are sent as JSON). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  sampler: SamplerName;
  /** The ratio of the traceidratio samplers (0..1). */
  ratio: number;
}

type Env = Record<string, string | undefined>;
type Fail = (message: string) => never;

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';

const val = (env: Env, name: string): string | undefined => env[name]?.trim() || undefined;

/** `key1=value1,key2=value2` with percent-encoded values (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
function keyValues(raw: string | undefined, name: string, fail: Fail): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? '').split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) fail(`${name} must be a list of key=value pairs separated by commas`);
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      fail(`${name} has a malformed percent-encoding`);
    }
  }
  return out;
}

function tracesUrl(env: Env, fail: Fail): string | undefined {
  const own = val(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = val(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  // The signal's own endpoint is used as given; the common one gets the signal's path appended.
  const url = own ?? (base === undefined ? undefined : `${base.replace(/\/+$/, '')}/v1/traces`);
  if (url === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return fail(`OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http(s) URL, got "${url}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    fail(`OTEL_EXPORTER_OTLP_ENDPOINT must use http or https, got "${url}"`);
  return url;
}

export function tracingConfig(env: Env, fail: Fail): TracingConfig | null {
  if ((val(env, 'OTEL_SDK_DISABLED') ?? '').toLowerCase() === 'true') return null;
  const exporters = (val(env, 'OTEL_TRACES_EXPORTER') ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const other = exporters.find((e) => e !== 'otlp' && e !== 'none');
  if (other) fail(`OTEL_TRACES_EXPORTER: only otlp (or none) is supported, got "${other}"`);
  const url = tracesUrl(env, fail);
  if (exporters.includes('none')) return null;
  if (!exporters.includes('otlp') && url === undefined) return null;
  const protocol = (
    val(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ??
    val(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ??
    'http/json'
  ).toLowerCase();
  if (protocol === 'grpc')
    fail('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/json (OTLP over HTTP, port 4318)');
  if (protocol !== 'http/json' && protocol !== 'http/protobuf')
    fail(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/json, got "${protocol}"`);
  const sampler = (val(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase() as SamplerName;
  if (!SAMPLERS.includes(sampler)) fail(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const arg = val(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = arg === undefined ? 1 : Number(arg);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    fail(`OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1, got "${arg}"`);
  const resourceAttributes = keyValues(val(env, 'OTEL_RESOURCE_ATTRIBUTES'), 'OTEL_RESOURCE_ATTRIBUTES', fail);
  return {
    url: url ?? DEFAULT_TRACES_URL,
    headers: {
      ...keyValues(val(env, 'OTEL_EXPORTER_OTLP_HEADERS'), 'OTEL_EXPORTER_OTLP_HEADERS', fail),
      ...keyValues(val(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', fail),
    },
    serviceName: val(env, 'OTEL_SERVICE_NAME') ?? resourceAttributes['service.name'] ?? 'tollway',
    resourceAttributes,
    sampler,
    ratio,
  };
}
