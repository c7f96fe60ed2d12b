import { describe, expect, it } from 'vitest';
import { paths } from '../../src/api/paths.js';
import { signalsWanted } from '../../src/observe/telemetry.js';
import { pathTemplates, templateOf } from '../../src/observe/upstream.js';

describe('signalsWanted (which OTEL_* settings turn OpenTelemetry on)', () => {
  it('stays off without an OTLP endpoint', () => {
    expect(signalsWanted({})).toBeUndefined();
    expect(signalsWanted({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
  });

  it('turns both signals on for the shared endpoint, and one for a per-signal endpoint', () => {
    expect(signalsWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ traces: true, metrics: true });
    expect(signalsWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toEqual({ traces: true, metrics: false });
    expect(signalsWanted({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318/v1/metrics' })).toEqual({ traces: false, metrics: true });
  });

  it('honors OTEL_SDK_DISABLED and the none exporters', () => {
    expect(signalsWanted({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBeUndefined();
    expect(signalsWanted({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ traces: true, metrics: true });
    expect(signalsWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({ traces: false, metrics: true });
    expect(signalsWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBeUndefined();
  });
});

describe('upstream span templates', () => {
  const templates = pathTemplates();

  it('names every path the client builds by a template with no value in it', () => {
    for (const [name, build] of Object.entries(paths)) {
      const path = (build as (...args: string[]) => string)(...Array.from({ length: build.length }, (_, i) => `value-${name}-${i}`));
      const template = templateOf(templates, path);
      expect(template, name).toBeDefined();
      expect(template, name).not.toContain('value-');
    }
  });

  it('prefers the more specific of two templates a path could match', () => {
    expect(templateOf(templates, paths.pauseAdCampaign('app_1', 'cmp_2'))).toBe('/api/apps/{id}/adnet-ads/campaigns/{id}/pause');
    expect(templateOf(templates, paths.startSchedulingPosts('app_1'))).toBe('/api/apps/{id}/social-calendar/posts/schedule');
    expect(templateOf(templates, paths.getSchedulingJob('app_1', 'job_3'))).toBe('/api/apps/{id}/social-calendar/posts/schedule/{id}');
  });

  it('gives no template to a path no operation builds', () => {
    expect(templateOf(templates, '/api/other/thing')).toBeUndefined();
  });
});
