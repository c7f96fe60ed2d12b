import { BUILTIN_EMAILS, type EmailType } from './builtin-emails.js';
import type { State } from './state.js';
import type { App, Workspace } from './world.js';

/**
 * What a simulated builder turn does to the app, so a later read shows it: a request that names an
 * application email and quotes its new heading or subject edits that email's template (templates are
 * files in the app's code that the AI creates and edits, service facts); every turn that changes
 * something saves a new version of the app, which push_app_to_repo then sends. A request the
 * simulation cannot carry out changes nothing, and the reply says so.
 */

/** How a request names each application email, in the words people use. */
const EMAIL_WORDS: Array<[EmailType, RegExp]> = [
  ['password_reset', /\bpassword[ -]?reset\b|\breset(ting)? (the |your |my )?password\b/i],
  ['email_verification', /\bverif(y|ication)\b|\bsign[ -]?up\b|\bconfirmation email\b/i],
  ['user_invite', /\binvit(e|ation)\b/i],
  ['access_approved', /\baccess[ -]approv|\bapproval email\b|\baccess approved\b/i],
];
/** A quoted new text: straight or curly double quotes, at most this long (a heading, not a page). */
const QUOTED = /["\u201c]([^"\u201c\u201d]{1,200})["\u201d]/;
const SUBJECT = /\bsubject\b/i;
const HEADING = /\b(heading|headline|title|h1)\b/i;

export interface TurnEffect {
  /** The assistant's reply: what changed, and where a later read shows it; or what was not done and why. */
  reply: string;
  /** The builder's tool calls of the turn. */
  calls: string[];
}

/** Carries out one request on the app and says what it did. */
export function applyTurn(state: State, app: App, workspace: Workspace, content: string): TurnEffect {
  const email = EMAIL_WORDS.find(([, words]) => words.test(content))?.[0];
  const mentionsEmail = /\be-?mail\b|\btemplate\b/i.test(content);
  if (email && mentionsEmail) return editEmail(state, app, workspace, email, content);
  const version = saveVersion(state, app);
  return {
    reply: `Saved a new version of the app (${version.slice(0, 7)}) for "${content.slice(0, 80)}". This simulation records the version, not the code itself; push_app_to_repo sends it to the repository.`,
    calls: ['edit_files'],
  };
}

function editEmail(state: State, app: App, workspace: Workspace, email: EmailType, content: string): TurnEffect {
  const field = SUBJECT.test(content) ? 'subject' : HEADING.test(content) ? 'heading' : undefined;
  const text = QUOTED.exec(content)?.[1]?.trim();
  if (!field || !text) {
    return {
      reply: `I did not change the ${email} email: say whether the heading or the subject should change, and quote the new text, e.g. change its heading to "Welcome aboard".`,
      calls: [],
    };
  }
  let template = app.email_templates.find((candidate) => candidate.email_type === email);
  if (!template) {
    if (!workspace.plan.paid_features) {
      return { reply: `I did not change the ${email} email: the ${workspace.plan.name} plan does not include custom application emails.`, calls: [] };
    }
    template = { template_id: state.ids.next('tpl'), email_type: email, ...BUILTIN_EMAILS[email], updated_offset_ms: 0 };
    app.email_templates.push(template);
  }
  if (field === 'subject') template.subject = text;
  else template.html = withHeading(template.html ?? BUILTIN_EMAILS[email].html, text);
  template.updated_offset_ms = state.clock.now() - state.startedAt;
  saveVersion(state, app);
  return {
    reply: `Changed the ${field} of the ${email} email to "${text}" (template ${template.template_id}). get_email_template shows the template; preview_app_email shows what recipients get.`,
    calls: ['edit_files'],
  };
}

/** The page with its first <h1> replaced (or one added at the top), the text escaped as HTML. */
function withHeading(html: string, text: string): string {
  const heading = `<h1>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</h1>`;
  const start = html.indexOf('<h1>');
  const end = start < 0 ? -1 : html.indexOf('</h1>', start);
  return end < 0 ? `${heading}${html}` : `${html.slice(0, start)}${heading}${html.slice(end + '</h1>'.length)}`;
}

/** A new saved version on the app's main line, not yet in the repository. */
function saveVersion(state: State, app: App): string {
  const commits = state.commits.get(app.id) ?? { saved: null, remote: null };
  const saved = state.ids.commitHash();
  state.commits.set(app.id, { saved, remote: commits.remote });
  app.repository.has_saved_version = true;
  app.repository.saved_version_pushed = false;
  return saved;
}
