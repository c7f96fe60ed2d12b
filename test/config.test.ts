import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENV_VARS, loadConfig, secretsOf } from '../src/config.js';
import { ConfigError } from '../src/errors.js';

/** The lines of the ConfigError that loadConfig throws (fails the test if it does not throw one). */
function problems(env: Record<string, string | undefined>, flags: Parameters<typeof loadConfig>[1] = {}): string[] {
  try {
    loadConfig(env, flags);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message.split('\n');
  }
  throw new Error('loadConfig accepted the configuration');
}

describe('loadConfig', () => {
  it('reads every setting from the environment and defaults the monitoring ones', () => {
    const config = loadConfig({
      APPMGMT_BASE_URL: 'https://api.example.com/',
      APPMGMT_ACCESS_TOKEN: 'tok',
      APPMGMT_API_KEY: 'key',
    });
    expect(config).toEqual({
      baseUrl: 'https://api.example.com',
      monitoringUrl: 'https://api.example.com',
      accessToken: 'tok',
      apiKey: 'key',
      monitoringApiKey: 'key',
      allowInsecureHttp: false,
      timeoutMs: 30_000,
      resolveTimeoutMs: 900_000,
      readOnly: false,
      requireHumanConfirmation: false,
      approvalTimeoutMs: 120_000,
      logLevel: 'info',
      http: { allowedHosts: [], allowedOrigins: [], maxBodyBytes: 1_048_576 },
      stateAllowEviction: false,
      sandbox: false,
    });
  });

  describe('http and shared state', () => {
    const SECRET = 'k7Qz9pLm2Xv4Rt8Wn3Yb6Hc1Jd5Fg0Ae';
    const messages = (env: Record<string, string>, flags = {}) => {
      try {
        loadConfig(env, flags);
      } catch (error) {
        return (error as Error).message.split('\n');
      }
      return [];
    };

    it('reads allowed hosts and origins, normalized, and the body limit', () => {
      const config = loadConfig({
        APPMGMT_HTTP_ALLOWED_HOSTS: 'MCP.example.com, mcp.example.com:8443,[::1]:9000',
        APPMGMT_HTTP_ALLOWED_ORIGINS: 'https://Chat.Example.com/, http://localhost:5173',
        APPMGMT_HTTP_MAX_BODY_BYTES: '2048',
      });
      expect(config.http).toEqual({
        allowedHosts: ['mcp.example.com', 'mcp.example.com:8443', '[::1]:9000'],
        allowedOrigins: ['https://chat.example.com', 'http://localhost:5173'],
        maxBodyBytes: 2048,
      });
    });

    it('names each malformed host or origin and what to give instead', () => {
      expect(messages({ APPMGMT_HTTP_ALLOWED_HOSTS: 'https://mcp.example.com', APPMGMT_HTTP_ALLOWED_ORIGINS: 'chat.example.com,https://a.example/path' })).toEqual([
        'APPMGMT_HTTP_ALLOWED_HOSTS: "https://mcp.example.com" is not a host name; give a name such as mcp.example.com or mcp.example.com:8443',
        'APPMGMT_HTTP_ALLOWED_ORIGINS: "chat.example.com" is not an origin; give one such as https://chat.example.com',
        'APPMGMT_HTTP_ALLOWED_ORIGINS: "https://a.example/path" has more than an origin; give only the scheme and host, such as https://chat.example.com',
      ]);
      expect(messages({ APPMGMT_HTTP_MAX_BODY_BYTES: '1e6' })).toEqual(['APPMGMT_HTTP_MAX_BODY_BYTES must be a positive whole number']);
    });

    it('refuses to bind another address without allowed hosts and origins', () => {
      expect(messages({}, { host: '0.0.0.0' })).toEqual([
        '--host 0.0.0.0 serves other machines, so APPMGMT_HTTP_ALLOWED_HOSTS and APPMGMT_HTTP_ALLOWED_ORIGINS must name the host names and browser origins clients use (comma-separated); nothing is allowed by default beyond this machine',
      ]);
      expect(messages({ APPMGMT_HTTP_ALLOWED_HOSTS: 'mcp.example.com' }, { host: '0.0.0.0' })[0]).toMatch(/so APPMGMT_HTTP_ALLOWED_ORIGINS must name/);
      expect(messages({ APPMGMT_HTTP_ALLOWED_HOSTS: 'mcp.example.com', APPMGMT_HTTP_ALLOWED_ORIGINS: 'https://chat.example.com' }, { host: '0.0.0.0' })).toEqual([]);
      for (const host of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) expect(messages({}, { host })).toEqual([]);
    });

    it('reads the state URL and secret, and never shows either in a message', () => {
      const config = loadConfig({ APPMGMT_STATE_URL: 'redis://:pw-Sekret@redis.internal:6379/2', APPMGMT_STATE_SECRET: SECRET });
      expect(config).toMatchObject({ stateUrl: 'redis://:pw-Sekret@redis.internal:6379/2', stateSecret: SECRET });
      expect(secretsOf(config)).toEqual(expect.arrayContaining([SECRET, 'pw-Sekret']));
      const wrong = messages({ APPMGMT_STATE_URL: 'http://user:pw-Sekret@redis.internal', APPMGMT_STATE_SECRET: 'short-Sekret' });
      expect(wrong).toEqual([
        'APPMGMT_STATE_URL must be a redis:// or rediss:// URL, such as redis://redis.internal:6379/0',
        'APPMGMT_STATE_SECRET must be at least 32 characters (the value is not shown); generate one with: openssl rand -hex 32',
      ]);
      expect(wrong.join('\n')).not.toMatch(/Sekret/);
    });

    it.each([
      ['a word as the database', 'redis://:pw-Sekret@redis.internal:6379/prod'],
      ['a negative database', 'redis://redis.internal:6379/-1'],
      ['a database past any Redis', 'redis://redis.internal:6379/10000'],
      ['a fraction', 'redis://redis.internal:6379/1.5'],
      ['a hex number', 'redis://redis.internal:6379/0x1'],
      ['more path after the database', 'redis://redis.internal:6379/0/extra'],
      ['an escaped digit', 'redis://redis.internal:6379/%31'],
    ])('refuses %s in the state URL, naming the variable and never the value', (_, url) => {
      const lines = messages({ APPMGMT_STATE_URL: url, APPMGMT_STATE_SECRET: SECRET });
      expect(lines).toEqual([
        'APPMGMT_STATE_URL must end with a database number from 0 to 9999, such as redis://redis.internal:6379/0 (Redis has 0 to 15 unless its databases setting allows more)',
      ]);
      expect(lines.join('\n')).not.toMatch(/Sekret|prod|extra/);
    });

    it.each([
      ['password', 'redis://:pw%zzSekret@redis.internal:6379/0'],
      ['user name', 'redis://us%E0%A4%A@redis.internal:6379/0'],
      ['password, cut short', 'redis://user:Sekret%4@redis.internal:6379/0'],
    ])('refuses a malformed %% escape in the state URL %s, naming the variable', (_, url) => {
      const lines = messages({ APPMGMT_STATE_URL: url, APPMGMT_STATE_SECRET: SECRET });
      expect(lines).toEqual([
        'APPMGMT_STATE_URL has a malformed % escape in its user name or password (the value is not shown); write a % sign itself as %25',
      ]);
      expect(lines.join('\n')).not.toMatch(/Sekret|URI malformed/);
    });

    it('refuses the database given as ?db=, which would bypass the check of the path', () => {
      expect(messages({ APPMGMT_STATE_URL: 'redis://redis.internal:6379?db=99', APPMGMT_STATE_SECRET: SECRET })).toEqual([
        'APPMGMT_STATE_URL gives the database as ?db=; give it as the path instead, such as redis://redis.internal:6379/0',
      ]);
    });

    it.each(['redis://redis.internal:6379', 'redis://redis.internal:6379/', 'redis://redis.internal:6379/0', 'redis://redis.internal:6379/15', 'rediss://redis.internal/99', 'redis://:p%25w@r:1/9999'])(
      'accepts %s, leaving a database Redis may refuse to the start-up check',
      (url) => {
        expect(messages({ APPMGMT_STATE_URL: url, APPMGMT_STATE_SECRET: SECRET })).toEqual([]);
      },
    );

    it('decodes the state password for redaction', () => {
      expect(secretsOf(loadConfig({ APPMGMT_STATE_URL: 'redis://:p%25w-Sekret@r:1/0', APPMGMT_STATE_SECRET: SECRET }))).toContain('p%w-Sekret');
    });

    it.each([
      ['one repeated character', 's'.repeat(32)],
      ['one repeated character, long', '0'.repeat(64)],
      ['three characters in turn', 'abc'.repeat(12)],
      ['seven different characters', 'abcdefg'.repeat(5)],
      ['one piece of eight repeated', 'Ab3$Zx9!'.repeat(4)],
      ['a hex half repeated', '0123456789abcdef'.repeat(2)],
    ])('refuses a state secret of %s without showing it', (_, secret) => {
      const lines = messages({ APPMGMT_STATE_URL: 'redis://127.0.0.1:6379/0', APPMGMT_STATE_SECRET: secret });
      expect(lines).toEqual([
        'APPMGMT_STATE_SECRET is too easy to guess: it needs at least 8 different characters and must not repeat one short piece (the value is not shown); generate one with: openssl rand -hex 32',
      ]);
      expect(lines.join('\n')).not.toContain(secret.slice(0, 8));
    });

    it('accepts a generated state secret, even one with few different characters by chance', () => {
      for (let i = 0; i < 50; i++) {
        const secret = randomBytes(16).toString('hex');
        expect(messages({ APPMGMT_STATE_URL: 'redis://127.0.0.1:6379/0', APPMGMT_STATE_SECRET: secret }), secret).toEqual([]);
      }
      expect(messages({ APPMGMT_STATE_URL: 'redis://127.0.0.1:6379/0', APPMGMT_STATE_SECRET: 'abcdefgh'.repeat(3) + 'abcdefgX' })).toEqual([]);
    });

    it('requires the signing secret with a state URL', () => {
      expect(messages({ APPMGMT_STATE_URL: 'redis://127.0.0.1:6379/0' })).toEqual([
        'APPMGMT_STATE_SECRET must be set with APPMGMT_STATE_URL: the same secret of at least 32 characters on every replica (generate one with: openssl rand -hex 32)',
      ]);
    });
  });

  it('reads the approval timeout and the insecure-http switch', () => {
    const config = loadConfig({
      APPMGMT_BASE_URL: 'http://api.internal.example',
      APPMGMT_ALLOW_INSECURE_HTTP: 'true',
      APPMGMT_APPROVAL_TIMEOUT_MS: '600000',
    });
    expect(config).toMatchObject({ baseUrl: 'http://api.internal.example', allowInsecureHttp: true, approvalTimeoutMs: 600_000 });
  });

  it('treats empty variables as unset, as MCP Bundle hosts send them', () => {
    const config = loadConfig({ APPMGMT_BASE_URL: 'https://a.example', APPMGMT_ACCESS_TOKEN: '', APPMGMT_APP_ID: '', APPMGMT_TOOLS: ' ' });
    expect(config.accessToken).toBeUndefined();
    expect(config.appId).toBeUndefined();
    expect(config.tools).toBeUndefined();
  });

  it('refuses a setting the MCP Bundle host left as its placeholder, naming the variable and the setting', () => {
    expect(problems({ APPMGMT_BASE_URL: 'https://a.example', APPMGMT_READ_ONLY: '${user_config.read_only}', APPMGMT_API_KEY: '${user_config.api_key}' })).toEqual([
      "APPMGMT_API_KEY is still ${user_config.api_key}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart",
      "APPMGMT_READ_ONLY is still ${user_config.read_only}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart",
    ]);
  });

  it.each([
    ['spaces inside the braces', '${ user_config.read_only }', "is still ${user_config.read_only}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart"],
    ['a placeholder inside a value', 'tok-Sekret-${user_config.x}', "is still ${user_config.x}: the MCP host did not fill this setting; set it in the extension's settings (or give the variable a value), then restart"],
    ['a placeholder of an odd name', '${user_config.a b}', "holds a ${…} placeholder the MCP client did not fill (the value is not shown); give it a value in the client's configuration, then restart"],
  ])('refuses %s without showing the rest of the value', (_, value, line) => {
    const lines = problems({ APPMGMT_ACCESS_TOKEN: value });
    expect(lines).toEqual([`APPMGMT_ACCESS_TOKEN ${line}`]);
    expect(lines.join('\n')).not.toContain('Sekret');
  });

  it("refuses a client's unfilled ${NAME}, $NAME or %NAME% in any setting, with that line alone", () => {
    expect(problems({ APPMGMT_BASE_URL: '${APPMGMT_BASE_URL}', APPMGMT_APP_ID: '$APPMGMT_APP_ID', APPMGMT_AUDIT_LOG: '%LOCALAPPDATA%\\audit.jsonl' })).toEqual([
      "APPMGMT_BASE_URL is still ${APPMGMT_BASE_URL}: the MCP client did not fill it, so APPMGMT_BASE_URL is not set where the client starts; set APPMGMT_BASE_URL there (or write the value itself into the client's configuration), then restart",
      "APPMGMT_APP_ID is still $APPMGMT_APP_ID: the MCP client did not fill it, so APPMGMT_APP_ID is not set where the client starts; set APPMGMT_APP_ID there (or write the value itself into the client's configuration), then restart",
      "APPMGMT_AUDIT_LOG is still %LOCALAPPDATA%: the MCP client did not fill it, so LOCALAPPDATA is not set where the client starts; set LOCALAPPDATA there (or write the value itself into the client's configuration), then restart",
    ]);
  });

  it('takes a secret with a $ or % inside as the secret it is', () => {
    const config = loadConfig({ APPMGMT_ACCESS_TOKEN: 'pat_ab$cd', APPMGMT_API_KEY: '$2b$12$R9h/cIPz0gi.URNNX3kh2O', APPMGMT_MONITORING_API_KEY: 'key%41%42' });
    expect(config).toMatchObject({ accessToken: 'pat_ab$cd', apiKey: '$2b$12$R9h/cIPz0gi.URNNX3kh2O', monitoringApiKey: 'key%41%42' });
  });

  it('refuses a malformed boolean or number with the variable name', () => {
    expect(problems({ APPMGMT_READ_ONLY: 'maybe' })).toEqual(['APPMGMT_READ_ONLY must be true or false']);
    expect(problems({ APPMGMT_TIMEOUT_MS: '-5' })).toEqual(['APPMGMT_TIMEOUT_MS must be a positive whole number']);
    expect(problems({ APPMGMT_LOG_LEVEL: 'verbose' })).toEqual(['APPMGMT_LOG_LEVEL must be debug, info, warn or error']);
  });

  it('reports every mistake at once, one line each, in the order of ENV_VARS', () => {
    expect(problems({ APPMGMT_LOG_LEVEL: 'loud', APPMGMT_BASE_URL: 'api.example.com', APPMGMT_READONLY: 'true', APPMGMT_TIMEOUT_MS: 'soon' })).toEqual([
      'APPMGMT_BASE_URL must be an http(s) URL such as https://api.example.com',
      'APPMGMT_TIMEOUT_MS must be a positive whole number',
      'APPMGMT_LOG_LEVEL must be debug, info, warn or error',
      'Unknown variable APPMGMT_READONLY; did you mean APPMGMT_READ_ONLY?',
    ]);
  });

  describe('unknown variables', () => {
    it.each([
      ['APPMGMT_READONLY', 'Unknown variable APPMGMT_READONLY; did you mean APPMGMT_READ_ONLY?'],
      ['APPMGMT_MAX_DAILY_BUDGET', 'Unknown variable APPMGMT_MAX_DAILY_BUDGET; did you mean APPMGMT_MAX_DAILY_BUDGET_MICROS?'],
      ['APPMGMT_ACCES_TOKEN', 'Unknown variable APPMGMT_ACCES_TOKEN; did you mean APPMGMT_ACCESS_TOKEN?'],
      ['appmgmt_readonly', 'Unknown variable appmgmt_readonly; did you mean APPMGMT_READ_ONLY?'],
      ['appmgmt_read_only', 'Unknown variable appmgmt_read_only; did you mean APPMGMT_READ_ONLY (names are upper case)?'],
      ['Appmgmt_Read_Only', 'Unknown variable Appmgmt_Read_Only; did you mean APPMGMT_READ_ONLY (names are upper case)?'],
    ])('%s stops start-up with the closest known name', (name, line) => {
      expect(problems({ [name]: 'true' })).toEqual([line]);
    });

    it('a wrongly cased known name is refused even next to the right one, and even when blank', () => {
      expect(problems({ APPMGMT_READ_ONLY: 'true', appmgmt_app_id: '' })).toEqual([
        'Unknown variable appmgmt_app_id; did you mean APPMGMT_APP_ID (names are upper case)?',
      ]);
    });

    it('leaves variables of other programs alone', () => {
      expect(() => loadConfig({ PATH: '/bin', APPMGMTX: '1', MY_APPMGMT_THING: '1', APIMGMT_URL: 'x', APP_NAME: 'x', APPDATA: 'x', MGMT_READ_ONLY: '1' })).not.toThrow();
    });

    it.each([
      ['APP_MGMT_READ_ONLY', 'APPMGMT_READ_ONLY'],
      ['APPMGMNT_READ_ONLY', 'APPMGMT_READ_ONLY'],
      ['APPMGNT_TOOLS', 'APPMGMT_TOOLS'],
      ['APMGMT_READONLY', 'APPMGMT_READ_ONLY'],
      ['appmgmt-read-only', 'APPMGMT_READ_ONLY'],
      ['AppMgmt.ReadOnly', 'APPMGMT_READ_ONLY'],
      ['APPMGMT__READ_ONLY', 'APPMGMT_READ_ONLY'],
      ['APPMGMTREADONLY', 'APPMGMT_READ_ONLY'],
      ['APP-MGMT-STATE-URL', 'APPMGMT_STATE_URL'],
      ['App_Mgmt_Base_Url', 'APPMGMT_BASE_URL'],
    ])('%s, our prefix written another way, stops start-up with the closest known name', (name, meant) => {
      const lines = problems({ [name]: 'true' });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(`Unknown variable ${name}; did you mean ${meant}?`);
    });

    it('refuses our prefix with other separators before a name that is not ours, as APPMGMT_ is refused', () => {
      expect(problems({ APP_MGMT_SOMETHING_ELSE: '1' })[0]).toMatch(/^Unknown variable APP_MGMT_SOMETHING_ELSE; did you mean APPMGMT_[A-Z_]+\?$/);
    });
  });

  describe('app scope and tools', () => {
    it('refuses an empty --app-id instead of removing the scope', () => {
      expect(problems({ APPMGMT_APP_ID: 'app_demo' }, { appId: '' })).toEqual(['--app-id is empty; give an app ID or leave the flag out']);
      expect(problems({}, { appId: '  ' })).toEqual(['--app-id is empty; give an app ID or leave the flag out']);
    });

    it('refuses --app-id and APPMGMT_APP_ID that disagree', () => {
      expect(problems({ APPMGMT_APP_ID: 'app_one' }, { appId: 'app_two' })).toEqual([
        '--app-id "app_two" and APPMGMT_APP_ID "app_one" disagree; set the app in one place',
      ]);
    });

    it('accepts the app scope from either place, or the same one from both', () => {
      expect(loadConfig({ APPMGMT_APP_ID: 'app_one' }).appId).toBe('app_one');
      expect(loadConfig({}, { appId: 'app_one' }).appId).toBe('app_one');
      expect(loadConfig({ APPMGMT_APP_ID: 'app_one' }, { appId: ' app_one ' }).appId).toBe('app_one');
    });

    it('refuses an empty --tools or an APPMGMT_TOOLS that names no tool', () => {
      expect(problems({}, { tools: '' })).toEqual(['--tools names no tool; list tool names separated by commas, or leave it out']);
      expect(problems({ APPMGMT_TOOLS: ', ,' })).toEqual(['APPMGMT_TOOLS names no tool; list tool names separated by commas, or leave it out']);
    });

    it('refuses --tools and APPMGMT_TOOLS that name different tools, but not the same ones in another order', () => {
      expect(problems({ APPMGMT_TOOLS: 'a,b' }, { tools: 'a' })).toEqual(['--tools and APPMGMT_TOOLS name different tools; set them in one place']);
      expect(loadConfig({ APPMGMT_TOOLS: 'a, b' }, { tools: 'b,a' }).tools).toEqual(['b', 'a']);
    });

    it('lets --read-only narrow the environment, never widen it', () => {
      expect(loadConfig({ APPMGMT_READ_ONLY: 'false' }, { readOnly: true }).readOnly).toBe(true);
      expect(loadConfig({ APPMGMT_READ_ONLY: 'true' }, { readOnly: false }).readOnly).toBe(true);
    });
  });

  describe('base URLs', () => {
    it('drops trailing slashes and refuses what is not http(s)', () => {
      expect(loadConfig({ APPMGMT_BASE_URL: 'https://api.example.com/v1//' }).baseUrl).toBe('https://api.example.com/v1');
      expect(problems({ APPMGMT_BASE_URL: 'ftp://x.example' })).toEqual(['APPMGMT_BASE_URL must be an http(s) URL such as https://api.example.com']);
    });

    it('refuses credentials in a URL without echoing the user name or password', () => {
      const lines = problems({ APPMGMT_BASE_URL: 'https://alice:hunter2secret@api.example.com', APPMGMT_MONITORING_URL: 'https://bob@mon.example.com' });
      expect(lines).toEqual([
        'APPMGMT_BASE_URL must not contain a user name or password; credentials belong in APPMGMT_ACCESS_TOKEN and APPMGMT_API_KEY',
        'APPMGMT_MONITORING_URL must not contain a user name or password; credentials belong in APPMGMT_MONITORING_API_KEY',
      ]);
      expect(lines.join('\n')).not.toMatch(/alice|hunter2|bob/);
    });

    it('refuses a URL with a query string or a fragment', () => {
      const line = 'APPMGMT_BASE_URL must not have a query string or fragment (? or #); give only the base URL, such as https://api.example.com';
      expect(problems({ APPMGMT_BASE_URL: 'https://api.example.com/?key=1' })).toEqual([line]);
      expect(problems({ APPMGMT_BASE_URL: 'https://api.example.com/#top' })).toEqual([line]);
      expect(problems({ APPMGMT_BASE_URL: 'https://api.example.com?' })).toEqual([line]);
    });

    it('refuses plain http to another machine unless APPMGMT_ALLOW_INSECURE_HTTP=true', () => {
      expect(problems({ APPMGMT_MONITORING_URL: 'http://mon.example.com:8080' })).toEqual([
        'APPMGMT_MONITORING_URL uses plain http:// to mon.example.com:8080, which is not this machine; use https://, or set APPMGMT_ALLOW_INSECURE_HTTP=true',
      ]);
      expect(problems({ APPMGMT_BASE_URL: 'http://api.example.com', APPMGMT_ALLOW_INSECURE_HTTP: 'false' })).toHaveLength(1);
      expect(loadConfig({ APPMGMT_BASE_URL: 'http://api.example.com', APPMGMT_ALLOW_INSECURE_HTTP: 'true' }).allowInsecureHttp).toBe(true);
    });

    it('refuses plain http when the insecure switch is itself malformed, and says both', () => {
      expect(problems({ APPMGMT_BASE_URL: 'http://api.example.com', APPMGMT_ALLOW_INSECURE_HTTP: 'sure' })).toEqual([
        'APPMGMT_BASE_URL uses plain http:// to api.example.com, which is not this machine; use https://, or set APPMGMT_ALLOW_INSECURE_HTTP=true',
        'APPMGMT_ALLOW_INSECURE_HTTP must be true or false',
      ]);
    });

    it.each(['http://localhost:3000', 'http://127.0.0.1:9', 'http://127.1.2.3', 'http://[::1]:8080', 'http://LOCALHOST'])(
      'allows plain http to loopback (%s)',
      (url) => {
        expect(loadConfig({ APPMGMT_BASE_URL: url }).allowInsecureHttp).toBe(false);
      },
    );

    it.each(['http://localhost.example.com', 'http://128.0.0.1', 'http://[::2]', 'http://10.0.0.1'])('treats %s as another machine', (url) => {
      expect(problems({ APPMGMT_BASE_URL: url })[0]).toMatch(/^APPMGMT_BASE_URL uses plain http:\/\//);
    });
  });

  describe('maxima', () => {
    it.each([
      ['APPMGMT_TIMEOUT_MS', '86400001', 'APPMGMT_TIMEOUT_MS must be at most 86400000 (24 hours)'],
      ['APPMGMT_RESOLVE_TIMEOUT_MS', '100000000000', 'APPMGMT_RESOLVE_TIMEOUT_MS must be at most 86400000 (24 hours)'],
      ['APPMGMT_APPROVAL_TIMEOUT_MS', '600001', 'APPMGMT_APPROVAL_TIMEOUT_MS must be at most 600000 (10 minutes)'],
      ['APPMGMT_MAX_DAILY_BUDGET_MICROS', '9007199254740992', 'APPMGMT_MAX_DAILY_BUDGET_MICROS must be at most 9007199254740991'],
    ])('%s above its maximum stops start-up and states the maximum', (name, value, line) => {
      expect(problems({ [name]: value })).toEqual([line]);
    });

    it('accepts each maximum itself', () => {
      const config = loadConfig({
        APPMGMT_TIMEOUT_MS: '86400000',
        APPMGMT_RESOLVE_TIMEOUT_MS: '86400000',
        APPMGMT_APPROVAL_TIMEOUT_MS: '600000',
        APPMGMT_MAX_DAILY_BUDGET_MICROS: String(Number.MAX_SAFE_INTEGER),
      });
      expect(config).toMatchObject({ timeoutMs: 86_400_000, resolveTimeoutMs: 86_400_000, approvalTimeoutMs: 600_000, maxDailyBudgetMicros: Number.MAX_SAFE_INTEGER });
    });
  });

  describe('secrets', () => {
    it('names a malformed secret variable but never shows its value', () => {
      const lines = problems({ APPMGMT_ACCESS_TOKEN: 'Bearer tok-abc123', APPMGMT_API_KEY: 'key\u200b-xyz789', APPMGMT_MONITORING_API_KEY: 'mon\tkey' });
      expect(lines).toEqual([
        'APPMGMT_ACCESS_TOKEN contains spaces or invisible characters; set it to the token alone (the value is not shown)',
        'APPMGMT_API_KEY contains spaces or invisible characters; set it to the key alone (the value is not shown)',
        'APPMGMT_MONITORING_API_KEY contains spaces or invisible characters; set it to the key alone (the value is not shown)',
      ]);
      expect(lines.join('\n')).not.toMatch(/abc123|xyz789|Bearer|\t/);
    });

    it('lists every configured secret for redaction', () => {
      const config = loadConfig({ APPMGMT_ACCESS_TOKEN: 'tok-123', APPMGMT_API_KEY: 'key-456', APPMGMT_MONITORING_API_KEY: 'mon-789' });
      expect(secretsOf(config).sort()).toEqual(['key-456', 'mon-789', 'tok-123']);
    });
  });

  it('gives every variable a one-line meaning for --help', () => {
    for (const [name, meaning] of Object.entries(ENV_VARS)) {
      expect(name).toMatch(/^APPMGMT_[A-Z_]+$/);
      expect(meaning, name).not.toContain('\n');
    }
    expect(Object.keys(ENV_VARS)).toEqual(expect.arrayContaining(['APPMGMT_APPROVAL_TIMEOUT_MS', 'APPMGMT_ALLOW_INSECURE_HTTP']));
  });
});

describe('toolsets', () => {
  it('reads APPMGMT_TOOLSETS and --toolsets, case-insensitively, with all meaning every toolset', () => {
    expect(loadConfig({ APPMGMT_TOOLSETS: 'Repo, chat' }).toolsets).toEqual(['repo', 'chat']);
    expect(loadConfig({}, { toolsets: 'campaigns' }).toolsets).toEqual(['campaigns']);
    expect(loadConfig({ APPMGMT_TOOLSETS: 'all' }).toolsets).toBeUndefined();
    expect(loadConfig({}).toolsets).toBeUndefined();
  });

  it('stops start-up on an unknown toolset, listing the valid ones', () => {
    expect(() => loadConfig({ APPMGMT_TOOLSETS: 'repo,campains' })).toThrow(
      'APPMGMT_TOOLSETS has unknown toolset campains; the toolsets are emails, campaigns, sharing, social, repo, chat, monitoring (or all)',
    );
  });

  it('refuses a --toolsets that disagrees with APPMGMT_TOOLSETS', () => {
    expect(() => loadConfig({ APPMGMT_TOOLSETS: 'repo' }, { toolsets: 'chat' })).toThrow(/--toolsets and APPMGMT_TOOLSETS name different toolsets/);
    expect(loadConfig({ APPMGMT_TOOLSETS: 'repo,chat' }, { toolsets: 'chat, repo' }).toolsets).toEqual(['chat', 'repo']);
  });
});
