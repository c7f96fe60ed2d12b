import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

// Workflow (b) of issue 10 against the default sandbox world. The only id typed here is the app the
// user names; the template id is read from the previous results.
const APP = 'app_demo';

interface Row {
  template_id: string;
  name: string;
}

describe('workflow (b): customize email -> preview -> list templates -> get -> delete -> preview', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  it('customizes the password reset email, reads it back, deletes it, and the built-in email is sent again', async () => {
    // 1. Customize: the app gets its own copy, and the next step points at the preview.
    const customized = await h.call('customize_app_email', { app_id: APP, email_type: 'password_reset' });
    expect(customized.isError, customized.text).toBe(false);
    expect(customized.structured).toMatchObject({ name: 'PasswordReset', created: true });
    expect(customized.structured?.next).toContain(`preview_app_email {"app_id":"${APP}","email_type":"password_reset"}`);
    expect(customized.text).toContain('send_app_chat_message');

    // 2. Preview: the app's own version is the one sent.
    const custom = await h.call('preview_app_email', { app_id: APP, email_type: 'password_reset' });
    expect(custom.isError, custom.text).toBe(false);
    expect(custom.structured?.authored_status).toBe('custom');
    expect(custom.text).toContain("authored_status custom: the app's own version is sent");
    expect(custom.structured?.next).toContain(`list_email_templates {"app_id":"${APP}"}`);

    // 3. List templates: newest first, so the new copy leads and the next step names its id.
    const listed = await h.call('list_email_templates', { app_id: APP });
    expect(listed.isError, listed.text).toBe(false);
    const rows = listed.structured?.templates as Row[];
    const template = rows.find((row) => row.name === 'PasswordReset')!;
    expect(template).toBeDefined();
    expect(rows[0]).toEqual(template);
    expect(listed.text).toContain(`- ${template.template_id}: "PasswordReset"`);
    expect(listed.structured?.next).toContain(`get_email_template {"app_id":"${APP}","template_id":"${template.template_id}"}`);
    expect(customized.structured?.template_id).toBe(template.template_id);

    // 4. Get: the HTML is the built-in copy with its placeholders; edits go through the app's AI.
    const got = await h.call('get_email_template', { app_id: APP, template_id: template.template_id });
    expect(got.isError, got.text).toBe(false);
    expect(got.structured).toMatchObject({ name: 'PasswordReset', application_email: 'password_reset' });
    expect(got.structured?.html_excerpt).toContain('{{action_url}}');
    expect(got.structured?.next).toContain('send_app_chat_message');

    // 5. Delete, gated: the first call only warns (it reads, never writes), naming the fallback.
    const args = { app_id: APP, template_id: template.template_id };
    const before = h.sandbox.requests.length;
    const warning = await h.call('delete_email_template', args);
    expect(warning.structured?.confirmation_needed).toBe(true);
    expect(h.sandbox.requests.slice(before).map((r) => r.method)).toEqual(['GET']);
    expect(warning.text).toContain("the app sends the service's built-in password_reset email again");
    expect(warning.text).toContain('cannot be restored');
    const deleted = await h.call('delete_email_template', { ...args, confirm: true });
    expect(deleted.isError, deleted.text).toBe(false);
    expect(deleted.structured).toMatchObject({ confirmation_needed: false, deleted: true });
    expect(deleted.structured?.next).toContain('preview_app_email');

    // 6. Preview again: the built-in version is sent.
    const builtin = await h.call('preview_app_email', { app_id: APP, email_type: 'password_reset' });
    expect(builtin.structured?.authored_status).toBe('builtin');
    expect(builtin.structured?.next).toContain(`customize_app_email {"app_id":"${APP}","email_type":"password_reset"}`);
    const after = await h.call('list_email_templates', { app_id: APP });
    expect((after.structured?.templates as Row[]).map((row) => row.template_id)).not.toContain(template.template_id);
  });

  it('shows a customized verification email as custom_not_sent while the app does not send from its own domain', async () => {
    await h.call('customize_app_email', { app_id: APP, email_type: 'email_verification' });
    const preview = await h.call('preview_app_email', { app_id: APP, email_type: 'email_verification' });
    expect(preview.structured?.authored_status).toBe('custom_not_sent');
    expect(preview.text).toContain('the app must send from its own email domain and its version must pass review');
  });
});

describe('workflow (b2): ask the builder to change an email -> read the change back', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  it("changes the sign-up email's heading through the builder, and the next step shows the new heading", async () => {
    const args = { app_id: APP, content: 'Change the heading of the sign-up email to "Welcome aboard".' };
    const warning = await h.call('send_app_chat_message', args);
    expect(warning.structured?.confirmation_needed).toBe(true);
    const turn = await h.call('send_app_chat_message', { ...args, confirm: true });
    expect(turn.isError, turn.text).toBe(false);
    expect(turn.text).not.toMatch(/conflict/);
    const next = turn.structured?.next as string;
    const preview = /preview_app_email (\{[^}]*\})/.exec(next);
    expect(preview, next).not.toBeNull();
    const shown = await h.call('preview_app_email', JSON.parse(preview![1]!) as Record<string, unknown>);
    expect(shown.isError, shown.text).toBe(false);
    // The sign-up email is custom_not_sent in this world: the preview shows the built-in copy and says where the app's own version is.
    expect(shown.structured?.authored_status).toBe('custom_not_sent');
    const list = /list_email_templates (\{[^}]*\})/.exec(shown.structured?.next as string);
    expect(list).not.toBeNull();
    const listed = await h.call('list_email_templates', JSON.parse(list![1]!) as Record<string, unknown>);
    const own = (listed.structured?.templates as Row[]).find((row) => row.name === 'EmailVerification')!;
    const got = await h.call('get_email_template', { app_id: APP, template_id: own.template_id });
    expect(got.isError, got.text).toBe(false);
    expect(got.structured?.html_excerpt).toContain('<h1>Welcome aboard</h1>');
  });
});
