import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/emails/tpl_3';
const DIGEST = {
  id: 'tpl_3',
  name: 'WeeklyDigest',
  subject: 'Your week in {{app_name}}',
  html: '<html><body><h1>Your week</h1><p>Hi {{first_name}}</p></body></html>',
  updated_date: '2026-10-28T09:00:00Z',
};

describe('get_email_template', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const get = (args: Record<string, unknown> = {}) => h.call('get_email_template', { app_id: 'app_demo', template_id: 'tpl_3', ...args });

  it('gets the template path with the bearer token and shows name, subject and the whole short HTML', async () => {
    h.sandbox.script({ status: 200, body: DIGEST });
    const result = await get();
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('GET');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.query).toBe('');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      template_id: 'tpl_3',
      name: 'WeeklyDigest',
      subject: 'Your week in {{app_name}}',
      updated_date: '2026-10-28T09:00:00Z',
      html_excerpt: DIGEST.html,
      html_length: DIGEST.html.length,
      application_email: '',
      next: 'To change it, call send_app_chat_message {"app_id":"app_demo","content":"In the email template WeeklyDigest, <the change>"} (costs credits), keeping placeholders such as {{first_name}}.',
    });
    expect(result.text).toMatchInlineSnapshot(`
      "Template tpl_3 ("WeeklyDigest") of app app_demo, updated 2026-10-28.
      Subject: "Your week in {{app_name}}"
      HTML (68 characters): "<html><body><h1>Your week</h1><p>Hi {{first_name}}</p></body></html>"
      No API edits its content: changes are made by the app's AI, through a chat message.
      Next: To change it, call send_app_chat_message {"app_id":"app_demo","content":"In the email template WeeklyDigest, <the change>"} (costs credits), keeping placeholders such as {{first_name}}."
    `);
  });

  it('trims long HTML to 1,500 characters, says its full length, and stays under 2,000 tokens', async () => {
    const html = `<html>${'<td style="padding:4px">漢字 cell</td>'.repeat(400)}</html>`;
    h.sandbox.script({ status: 200, body: { ...DIGEST, html } });
    const result = await get();
    expect((result.structured?.html_excerpt as string).length).toBeLessThanOrEqual(1_500);
    expect(result.structured?.html_length).toBe(html.length);
    expect(result.text).toContain(`HTML: ${html.length.toLocaleString('en-US')} characters; the first 1,500:`);
    expect(countTokens(result.text) + countTokens(JSON.stringify(result.structured))).toBeLessThan(2_000);
  });

  it("names the application email when the template is the app's own version of one", async () => {
    h.sandbox.script({ status: 200, body: { ...DIGEST, name: 'PasswordReset' } });
    const result = await get();
    expect(result.structured?.application_email).toBe('password_reset');
    expect(result.text).toContain("It is the app's own version of the password_reset email (preview_app_email shows whether it is the one sent).");
  });

  it('reads a customized template of the default world', async () => {
    const customized = await h.call('customize_app_email', { app_id: 'app_demo', email_type: 'access_approved' });
    const result = await get({ template_id: customized.structured?.template_id });
    expect(result.structured).toMatchObject({ name: 'AccessApproved', application_email: 'access_approved' });
    expect(result.structured?.html_excerpt).toContain('{{action_url}}');
  });

  describe('errors', () => {
    it.each([
      [401, /^401: The access token is missing, invalid or expired/],
      [403, /^403: Not allowed: the token may not read this app/],
      [404, /^404: App or template not found \(the template may have been deleted\): list_email_templates shows/],
    ])('explains %i for this operation', async (status, expected) => {
      h.sandbox.script({ status, body: { detail: 'Email template not found.' } });
      const result = await get();
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
    });

    it('answers 404 for an unknown template of the default world', async () => {
      const result = await get({ template_id: 'tpl_nope' });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^404: App or template not found/);
    });

    it('says a read-only token cannot read a template', async () => {
      h.sandbox.script({ status: 403, body: { detail: 'read_only_credential_route_not_allowed' } });
      const result = await get();
      expect(result.text).toContain('Reading a template needs a full-access token even though it changes nothing');
    });

    it('gives the limit shared with list_email_templates on a 429', async () => {
      h.sandbox.script({ status: 429, headers: { 'retry-after': '0' }, times: 2 });
      h.sandbox.script({ status: 429, headers: { 'retry-after': '5' } });
      const result = await get();
      expect(result.text).toContain('429: Rate limit: 60 template reads per minute (times the plan multiplier), shared with list_email_templates.');
    });
  });

  it.each([
    [{ app_id: 'app_demo' }, 'template_id'],
    [{ app_id: 'app_demo', template_id: '..' }, 'template_id'],
    [{ app_id: 'app_demo', template_id: '' }, 'template_id'],
  ])('rejects invalid input %j naming the field, and sends nothing', async (args, field) => {
    const result = await h.call('get_email_template', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('encodes the template id so it cannot change the path', async () => {
    h.sandbox.script({ status: 200, body: DIGEST });
    await get({ template_id: 'a/b?c' });
    expect(h.sandbox.requests[0]?.rawPath).toBe('/api/apps/app_demo/emails/a%2Fb%3Fc');
  });
});
