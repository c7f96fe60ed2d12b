import { describe, expect, it } from 'vitest';
import { loadConfig, secretsOf } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

describe('loadConfig', () => {
  it('reads every setting from the environment and defaults the monitoring ones', () => {
    const { config, warnings } = loadConfig({
      APPMGMT_BASE_URL: 'https://api.example.com/',
      APPMGMT_ACCESS_TOKEN: 'tok',
      APPMGMT_API_KEY: 'key',
    });
    expect(config).toMatchObject({
      baseUrl: 'https://api.example.com',
      monitoringUrl: 'https://api.example.com',
      accessToken: 'tok',
      apiKey: 'key',
      monitoringApiKey: 'key',
      timeoutMs: 30_000,
      resolveTimeoutMs: 900_000,
      readOnly: false,
    });
    expect(warnings).toEqual([]);
  });

  it('treats empty variables as unset, as MCP Bundle hosts send them', () => {
    const { config } = loadConfig({ APPMGMT_BASE_URL: 'https://a.example', APPMGMT_ACCESS_TOKEN: '', APPMGMT_APP_ID: '' });
    expect(config.accessToken).toBeUndefined();
    expect(config.appId).toBeUndefined();
  });

  it('treats an unfilled MCP Bundle placeholder as unset', () => {
    const { config } = loadConfig({ APPMGMT_BASE_URL: 'https://a.example', APPMGMT_MONITORING_URL: '${user_config.monitoring_url}', APPMGMT_API_KEY: '${user_config.api_key}' });
    expect(config.monitoringUrl).toBe('https://a.example');
    expect(config.apiKey).toBeUndefined();
  });

  it('refuses a malformed URL with the variable name', () => {
    expect(() => loadConfig({ APPMGMT_BASE_URL: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ APPMGMT_BASE_URL: 'ftp://x.example' })).toThrow(/APPMGMT_BASE_URL must be an http\(s\) URL/);
  });

  it('refuses a malformed boolean or number with the variable name', () => {
    expect(() => loadConfig({ APPMGMT_READ_ONLY: 'maybe' })).toThrow(/APPMGMT_READ_ONLY must be true or false/);
    expect(() => loadConfig({ APPMGMT_TIMEOUT_MS: '-5' })).toThrow(/APPMGMT_TIMEOUT_MS must be a positive whole number/);
  });

  it('reports an unknown APPMGMT_ variable and suggests the closest name', () => {
    const { warnings } = loadConfig({ APPMGMT_ACCES_TOKEN: 'x', APPMGMT_ZZZZZZZZZZZZZZZZZZ: '1', OTHER: 'y' });
    expect(warnings).toEqual([
      'Unknown variable APPMGMT_ACCES_TOKEN is ignored. Did you mean APPMGMT_ACCESS_TOKEN?',
      'Unknown variable APPMGMT_ZZZZZZZZZZZZZZZZZZ is ignored.',
    ]);
  });

  it('lets flags override the environment', () => {
    const { config } = loadConfig({ APPMGMT_READ_ONLY: 'false', APPMGMT_TOOLS: 'a, b' }, { readOnly: true });
    expect(config.readOnly).toBe(true);
    expect(config.tools).toEqual(['a', 'b']);
  });

  it('lists every configured secret for redaction', () => {
    const { config } = loadConfig({ APPMGMT_ACCESS_TOKEN: 'tok-123', APPMGMT_API_KEY: 'key-456', APPMGMT_MONITORING_API_KEY: 'mon-789' });
    expect(secretsOf(config).sort()).toEqual(['key-456', 'mon-789', 'tok-123']);
  });
});
