import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../src/log.js';
import { redactor, WITHHELD } from '../../src/text.js';
import { viewsOf } from '../views-oracle.js';
import { connect, type Harness } from '../helpers.js';

// Issue 16, section 6: secrets reached the model when the service echoed them URL-encoded with `/`
// left plain, with a lowercase %2f, double-encoded, with `\/` or `\u00xx` escapes, as HTML
// entities, hex, upper case, or base64 wrapped across lines. Each echo, at each place upstream text
// reaches a result (a field of a success, an error body), must reach neither the model nor a log.
const SECRET = 'tok-Echo/Secret+9f8e7d6c';
const b64 = (text: string) => Buffer.from(text).toString('base64');
const everyChar = (text: string, form: (code: number) => string) => [...text].map((char) => form(char.codePointAt(0)!)).join('');
const ECHOES: Array<[string, string]> = [
  ['URL-encoded with / left plain', encodeURIComponent(SECRET).replace(/%2F/g, '/')],
  ['URL-encoded with a lowercase %2f', encodeURIComponent(SECRET).replace(/%2F/g, '%2f')],
  ['double URL-encoded', encodeURIComponent(encodeURIComponent(SECRET))],
  ['JSON-escaped with \\/', SECRET.replace(/\//g, '\\/')],
  ['JSON \\u00xx escapes', everyChar(SECRET, (code) => `\\u${code.toString(16).padStart(4, '0')}`)],
  ['HTML entities', SECRET.replace(/\//g, '&#x2F;').replace(/\+/g, '&plus;').replace(/-/g, '&#45;')],
  ['hex', Buffer.from(SECRET).toString('hex')],
  ['upper case', SECRET.toUpperCase()],
  ['base64 wrapped across lines', b64(`Bearer ${SECRET}`).replace(/(.{6})/g, '$1\n')],
];
const holdsSecret = (text: string) => viewsOf(text).some((view) => view.includes(SECRET.toLowerCase()));

describe('secrets echoed in an encoding', () => {
  let h: Harness;
  const logged: string[] = [];
  beforeAll(async () => {
    h = await connect({
      config: { accessToken: SECRET, logLevel: 'debug' },
      log: createLog({ level: 'debug', write: (line) => logged.push(line), redact: redactor([SECRET]) }),
    });
  });
  afterAll(() => h.close());

  it.each(ECHOES)('withholds an answer field that holds the secret %s, and logs no trace of it', async (_name, echo) => {
    logged.length = 0;
    h.sandbox.script({ status: 200, body: { success: false, commits_pushed: false, commit_hash: null, error: `push refused for ${echo}` } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    const seen = `${result.text}\n${JSON.stringify(result.structured ?? {})}\n${logged.join('')}`;
    expect(holdsSecret(seen), seen).toBe(false);
    expect(result.text).toContain(WITHHELD);
  });

  it.each(ECHOES)('withholds an error body that holds the secret %s', async (_name, echo) => {
    h.sandbox.script({ status: 400, body: { detail: `bad credential ${echo}` } });
    const result = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'password_reset' });
    expect(result.isError).toBe(true);
    expect(holdsSecret(result.text), result.text).toBe(false);
    expect(result.text).toContain('withheld');
  });
});
