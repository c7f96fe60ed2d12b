import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/emails/tpl_3';
const DIGEST = { id: 'tpl_3', name: 'WeeklyDigest', subject: 'Your week', html: '<p>Hi</p>', updated_date: '2026-10-28T09:00:00Z' };
const ARGS = { app_id: 'app_demo', template_id: 'tpl_3' };

describe('delete_email_template', () => {
  let h: Harness;
  // A fresh server per test: the confirmation gate remembers warnings across calls.
  beforeEach(async () => {
    h = await connect();
  });
  afterEach(() => h.close());

  const remove = (args: Record<string, unknown> = ARGS) => h.call('delete_email_template', args);
  /** Warns (reading the template), then confirms; the requests of the confirmed call only. */
  async function confirmed(answer: { status: number; body?: unknown; headers?: Record<string, string> }) {
    h.sandbox.script({ status: 200, body: DIGEST });
    const warning = await remove();
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\./);
    h.sandbox.requests.length = 0;
    h.sandbox.script(answer);
    return remove({ ...ARGS, confirm: true });
  }

  describe('confirmation', () => {
    it('only reads the template on the first call, and warns with exactly what disappears and what breaks', async () => {
      h.sandbox.script({ status: 200, body: DIGEST });
      const result = await remove();
      expect(h.sandbox.requests.map((r) => `${r.method} ${r.rawPath}`)).toEqual([`GET ${PATH}`]);
      expect(result.isError).toBe(false);
      expect(result.structured).toMatchObject({ confirmation_needed: true, cost: 'Permanent: the template and its content are deleted and cannot be restored; sends of "WeeklyDigest" by name fail.' });
      expect(result.text).toContain('Workflows and backend functions that send "WeeklyDigest" by name keep that name in their code: those sends fail once it is gone.');
      expect(result.text).not.toContain('built-in');
      expect(result.text).toMatchInlineSnapshot(`
        "CONFIRMATION NEEDED. Nothing was sent.
        Delete email template tpl_3 ("WeeklyDigest") of app app_demo.
        Template: "WeeklyDigest", subject "Your week", updated 2026-10-28, HTML 9 characters.
        Workflows and backend functions that send "WeeklyDigest" by name keep that name in their code: those sends fail once it is gone.
        Needs editor access. If the service cannot remove the file, nothing is deleted and a retry is safe.
        Cost: Permanent: the template and its content are deleted and cannot be restored; sends of "WeeklyDigest" by name fail.
        Next: Show this to the user; only if they agree, call delete_email_template again with the same arguments plus confirm: true within 10 minutes."
      `);
    });

    it("says the built-in email is sent again when the template is the app's own version of an application email", async () => {
      h.sandbox.script({ status: 200, body: { ...DIGEST, name: 'PasswordReset' } });
      const result = await remove();
      expect(result.text).toContain("This is the app's own version of the password_reset email: the app sends the service's built-in password_reset email again");
      // The caveat that matters to the decision is in the structured cost too, not only in the text.
      expect(result.structured?.cost).toContain('the app then sends the built-in password_reset email');
      expect(result.text).toMatchInlineSnapshot(`
        "CONFIRMATION NEEDED. Nothing was sent.
        Delete email template tpl_3 ("PasswordReset") of app app_demo.
        Template: "PasswordReset", subject "Your week", updated 2026-10-28, HTML 9 characters.
        Workflows and backend functions that send "PasswordReset" by name keep that name in their code: those sends fail once it is gone.
        This is the app's own version of the password_reset email: the app sends the service's built-in password_reset email again (customize_app_email makes a fresh copy of the built-in one, not of this content).
        Needs editor access. If the service cannot remove the file, nothing is deleted and a retry is safe.
        Cost: Permanent: the template and its content are deleted and cannot be restored; the app then sends the built-in password_reset email; sends of "PasswordReset" by name fail.
        Next: Show this to the user; only if they agree, call delete_email_template again with the same arguments plus confirm: true within 10 minutes."
      `);
    });

    it('confirmed, sends exactly one DELETE with the bearer token and no body, and reports the deletion', async () => {
      const result = await confirmed({ status: 200, body: { deleted: true } });
      expect(h.sandbox.requests).toHaveLength(1);
      const [request] = h.sandbox.requests;
      expect(request?.method).toBe('DELETE');
      expect(request?.rawPath).toBe(PATH);
      expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
      expect(request?.headers['x-request-id']).toBeUndefined();
      expect(request?.body).toBeUndefined();
      expect(result.isError).toBe(false);
      expect(result.structured).toMatchObject({ confirmation_needed: false, template_id: 'tpl_3', deleted: true });
      expect(result.text).toMatchInlineSnapshot(`
        "Deleted email template tpl_3 of app app_demo. If it was the app's own version of an application email, the built-in version is sent again.
        Next: Check which version an application email sends now with preview_app_email {"app_id":"app_demo"} plus its email_type, or see the remaining templates with list_email_templates {"app_id":"app_demo"}."
      `);
    });

    it('sends nothing for confirm: true without an earlier warning', async () => {
      const result = await remove({ ...ARGS, confirm: true });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
      expect(h.sandbox.requests).toHaveLength(0);
    });

    it('sends one DELETE for two confirmations of one warning', async () => {
      await confirmed({ status: 200, body: { deleted: true } });
      const again = await remove({ ...ARGS, confirm: true });
      expect(again.text).toMatch(/^NOT SENT/);
      expect(h.sandbox.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
    });

    it('gives no warning for a template that does not exist, and sends no DELETE', async () => {
      h.sandbox.script({ status: 404, body: { detail: 'Email template not found.' } });
      const result = await remove();
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^404: App or template not found: it may already be deleted\. list_email_templates shows/);
      expect(h.sandbox.requests.map((r) => r.method)).toEqual(['GET']);
    });
  });

  describe('outcomes', () => {
    it('is a failure when the service answers deleted: false, and says a retry is safe', async () => {
      const result = await confirmed({ status: 200, body: { deleted: false } });
      expect(result.isError).toBe(true);
      expect(result.text).toContain('was not deleted (the file could not be removed); nothing changed, so a retry is safe');
    });

    it('reports an unknown outcome on a 500 and says how to check before trying again', async () => {
      const result = await confirmed({ status: 500, body: { detail: 'could not remove file' } });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/^OUTCOME UNKNOWN: the service answered 500\. The template may or may not be deleted/);
      expect(result.text).toContain('Check with list_email_templates or get_email_template (a 404 means it is gone)');
      expect(h.sandbox.requests).toHaveLength(1);
    });

    it.each([
      [403, /^403: Not allowed: deleting needs a token of a user with editor access/],
      [404, /^404: App or template not found: it may already be deleted/],
      [401, /^401: The access token is missing, invalid or expired/],
    ])('explains a %i to the DELETE, which deleted nothing', async (status, expected) => {
      const result = await confirmed({ status, body: { detail: 'Denied' } });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
    });

    it('does not retry a 429 and gives the limit', async () => {
      const result = await confirmed({ status: 429, headers: { 'retry-after': '0' } });
      expect(h.sandbox.requests).toHaveLength(1);
      expect(result.text).toContain('429: Rate limit: 20 deletes per minute');
    });

    it('names a read-only token on the warning read, and sends no DELETE', async () => {
      h.sandbox.script({ status: 403, body: { detail: 'read_only_credential_route_not_allowed' } });
      const result = await remove();
      expect(result.text).toContain('Deleting needs a full-access token');
      expect(h.sandbox.requests.map((r) => r.method)).toEqual(['GET']);
    });
  });

  it("deletes the default world's WeeklyDigest after confirmation, and it is gone", async () => {
    const args = { app_id: 'app_demo', template_id: 'tpl_seed_digest' };
    const warning = await h.call('delete_email_template', args);
    expect(warning.structured?.action).toBe('Delete email template tpl_seed_digest ("WeeklyDigest") of app app_demo');
    const done = await h.call('delete_email_template', { ...args, confirm: true });
    expect(done.isError).toBe(false);
    const again = await h.call('get_email_template', args);
    expect(again.text).toMatch(/^404/);
  });

  it.each([
    [{ app_id: 'app_demo' }, 'template_id'],
    [{ app_id: 'app_demo', template_id: '.' }, 'template_id'],
    [{ ...ARGS, force: true }, 'force'],
  ])('rejects invalid input %j naming the field, and sends nothing', async (args, field) => {
    const result = await h.call('delete_email_template', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
