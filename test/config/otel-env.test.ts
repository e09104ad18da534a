// The standard OTEL_* variables as the gateway reads them: tracing is off unless asked for; the endpoint rules,
// headers, service name and sampler of the OpenTelemetry specification; what cannot work is refused at start.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

const tracing = (env: Record<string, string>) => loadConfig(env).tracing;

describe('OTEL_* variables', () => {
  it('off by default, with OTEL_TRACES_EXPORTER=none and with OTEL_SDK_DISABLED=true', () => {
    expect(tracing({})).toBeNull();
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBeNull();
    expect(tracing({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeNull();
    // Sampler and headers alone switch nothing on.
    expect(tracing({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toBeNull();
  });

  it('on with an OTLP endpoint (the signal path appended) or with OTEL_TRACES_EXPORTER=otlp (the default collector address)', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.url).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/custom',
      })?.url,
    ).toBe('https://traces.example/custom');
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      url: 'http://localhost:4318/v1/traces',
      headers: {},
      serviceName: 'tollway',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
  });

  it('headers, service name, resource attributes and sampler', () => {
    const c = tracing({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%20b,x=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x=2',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(c).toMatchObject({
      headers: { 'api-key': 'a b', x: '2' },
      serviceName: 'from-attrs',
      resourceAttributes: { 'deployment.environment': 'prod' },
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
    expect(
      tracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_SERVICE_NAME: 'gw-1',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=other',
      })?.serviceName,
    ).toBe('gw-1');
  });

  it('refuses at start what cannot work', () => {
    for (const env of [
      { OTEL_TRACES_EXPORTER: 'zipkin' },
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' },
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' },
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' },
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /http\/json/,
    );
  });

  it('TOLLWAY_METRICS_TOKEN: at least 16 characters', () => {
    expect(loadConfig({ TOLLWAY_METRICS_TOKEN: 'metrics-token-0123456789' }).metricsToken).toBe(
      'metrics-token-0123456789',
    );
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(() => loadConfig({ TOLLWAY_METRICS_TOKEN: 'short' })).toThrow(ConfigError);
  });
});
