import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, useSandbox } from './helpers.js';

const templates = (app: string) => `/api/apps/${app}/emails`;
const template = (app: string, id: string) => `/api/apps/${app}/emails/${id}`;

describe('a simulated builder turn', () => {
  const s = useSandbox();
  const send = (app: string, content: string) => call(s.sandbox, 'POST', paths.chat(app), { token: OWNER, body: { content } });
  const reply = (answer: { body: { conversation: { messages: Array<{ role: string; content: string }> } } }) => answer.body.conversation.messages.at(-1)!.content;
  const ownTemplate = async (app: string, type: string) => {
    const app_ = s.sandbox.simulation.inspect().apps.find((candidate) => candidate.id === app)!;
    const own = app_.email_templates.find((candidate) => candidate.email_type === type);
    return own ? (await call(s.sandbox, 'GET', template(app, own.template_id), { token: OWNER })).body : undefined;
  };
  const commitsOf = (app: string) => s.sandbox.simulation.inspect().apps.find((candidate) => candidate.id === app)!.repository;

  it("changes the heading of the email a request names, and a later read shows the new heading", async () => {
    const answer = await send('app_demo', 'Change the sign-up email\'s heading to "Welcome aboard"');
    expect(answer.status).toBe(200);
    expect(reply(answer)).toMatch(/^Changed the heading of the email_verification email to "Welcome aboard" \(template tpl_/);
    const read = await ownTemplate('app_demo', 'email_verification');
    expect(read.html).toContain('<h1>Welcome aboard</h1>');
    expect(read.html).not.toContain('<h1>Verify your email</h1>');
    const listed = (await call(s.sandbox, 'GET', templates('app_demo'), { token: OWNER })).body as Array<{ id?: string; template_id?: string }>;
    expect(listed.length).toBeGreaterThan(0);
  });

  it('changes the subject when the request says subject, escaping what it quotes', async () => {
    await send('app_demo', 'Set the password reset email subject to "Reset <now>"');
    expect((await ownTemplate('app_demo', 'password_reset')).subject).toBe('Reset <now>');
    await send('app_demo', 'Make the password reset email heading "Tom & Jerry <b>"');
    expect((await ownTemplate('app_demo', 'password_reset')).html).toContain('<h1>Tom &amp; Jerry &lt;b&gt;</h1>');
  });

  it('changes nothing, and says so, when an email request quotes no new text', async () => {
    const before = await ownTemplate('app_demo', 'user_invite');
    const answer = await send('app_demo', 'Make the invite email friendlier');
    expect(reply(answer)).toMatch(/^I did not change the user_invite email: say whether the heading or the subject should change, and quote the new text/);
    expect(await ownTemplate('app_demo', 'user_invite')).toEqual(before);
  });

  it('saves a new version for any other request, which push then sends', async () => {
    const before = commitsOf('app_notes').commits;
    const answer = await send('app_notes', 'Add a dark mode toggle');
    expect(reply(answer)).toMatch(/^Saved a new version of the app \([0-9a-f]{7}\) for "Add a dark mode toggle"\..*push_app_to_repo sends it/);
    const after = commitsOf('app_notes');
    expect(after.commits?.saved).toMatch(/^[0-9a-f]{40}$/);
    expect(after.commits?.saved).not.toBe(before?.saved);
    expect(after.has_saved_version).toBe(true);
    expect(after.saved_version_pushed).toBe(false);
  });
});
