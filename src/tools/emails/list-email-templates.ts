import { z } from 'zod';
import type { EmailTemplateRow } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, whole } from '../fields.js';
import { approxTokens, aside, fitBudget, nextCall, plural } from '../format.js';
import { dayOf } from './email-text.js';

/** Service facts: at most 200 templates, newest first, no paging. */
export const MAX_TEMPLATES = 200;
/** Rows shown, and the (approximate) tokens their text may take: the result stays far under 2,000 tokens. */
const MAX_ROWS = 20;
const ROWS_TOKENS = 500;

const Row = z.strictObject({ template_id: z.string(), name: z.string(), subject: z.string(), updated_date: z.string() });
type Row = z.infer<typeof Row>;

export const listEmailTemplates = defineTool({
  name: 'list_email_templates',
  title: 'List Email Templates',
  description:
    "The app's email templates, newest first, without HTML (the service returns at most 200). Read-only.",
  input: {
    app_id: appId,
    limit: whole(1, MAX_TEMPLATES).default(MAX_TEMPLATES).describe('Newest templates to fetch.'),
    skip: whole(0, MAX_TEMPLATES - 1).optional().describe('Rows to skip.'),
  },
  output: {
    templates: z.array(Row).describe(`The newest, at most ${MAX_ROWS}.`),
    returned: z.number().describe('Templates the service returned.'),
    more_may_exist: z.boolean().describe('The limit was reached.'),
    next_skip: z.number().optional().describe('skip value for the rows not shown.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token may not read this app (workspace API keys are refused).',
    404: "App not found, or not in the token's workspace. Check app_id.",
    429: 'Rate limit: 60 template reads per minute (times the plan multiplier), shared with get_email_template.',
    read_only: 'Listing templates needs a full-access token even though it changes nothing: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
  },
  async run({ app_id, limit, skip = 0 }, ctx) {
    const rows = await ctx.api.listEmailTemplates(app_id, limit, { signal: ctx.signal });
    return describeList(ctx, app_id, limit, rows, skip);
  },
});

function describeList(ctx: ToolContext, app: string, limit: number, rows: EmailTemplateRow[], skip: number): ToolResult {
  const candidates = rows.slice(skip, skip + MAX_ROWS).map((row) => {
    const fact = {
      template_id: sanitize(row.id, 200),
      name: sanitize(row.name ?? '', 60),
      subject: sanitize(row.subject ?? '', 80),
      updated_date: sanitize(row.updated_date ?? '', 40),
    };
    const name = fact.name ? quote(fact.name, 60) : 'no name';
    const subject = fact.subject ? `subject ${quote(fact.subject, 80)}` : 'no subject';
    return { fact, line: `- ${idText(row.id)}: ${name}, ${subject}${fact.updated_date ? `, updated ${dayOf(fact.updated_date)}` : ''}` };
  });
  const fitted = fitBudget(candidates, ROWS_TOKENS, (candidate) => approxTokens(candidate.line));
  const shown: Row[] = fitted.map((candidate) => candidate.fact);
  const lines = fitted.map((candidate) => candidate.line);
  const moreMayExist = rows.length >= limit;
  const nextSkip = skip + shown.length < rows.length ? skip + shown.length : undefined;
  const part = skip > 0 ? `; ${skip + 1} to ${skip + shown.length} shown` : shown.length < rows.length ? `; the newest ${shown.length} shown` : '';
  const head =
    rows.length === 0
      ? `App ${idText(app)} has no email templates.`
      : `App ${idText(app)}: ${plural(rows.length, 'email template')}, newest first${part}:`;
  const rest = nextSkip === undefined ? '' : nextCall(ctx.config, 'list_email_templates', { app_id: app, limit: limit === MAX_TEMPLATES ? undefined : limit, skip: nextSkip });
  const tail = [
    ...(rows.length > 0 && shown.length === 0 ? [`None after the first ${skip}: call again with a smaller skip.`] : []),
    ...(rest ? [`${plural(rows.length - nextSkip!, 'older template')} follow: ${rest}.`] : []),
    ...(moreMayExist ? [`The limit (${limit}) was reached: more templates may exist, and the service lists at most ${MAX_TEMPLATES}.`] : []),
  ];
  const first = shown[0];
  const older = rest ? `older ones with ${rest}` : '';
  const one = first ? aside(ctx, 'get_email_template', { app_id: app, template_id: first.template_id }, (call) => `Read one with ${call}`) : '';
  const read = first
    ? one
      ? `${one}${older ? `; ${older}` : ''}.`
      : `${ctx.offered.missing('get_email_template')}${older ? ` The ${older}.` : ''}`
    : `Nothing to read${aside(ctx, 'customize_app_email', { app_id: app }, (call) => `; ${call} with an email_type gives the app its own version of an application email`)}.`;
  return {
    text: [head, ...lines, ...tail].join('\n'),
    next: read,
    structured: { templates: shown, returned: rows.length, more_may_exist: moreMayExist, ...(nextSkip !== undefined ? { next_skip: nextSkip } : {}) },
  };
}
