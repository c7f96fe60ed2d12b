import { z } from 'zod';
import type { CampaignRow } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, whole } from '../fields.js';
import { approxTokens, aside, fitBudget, money, nextCall, plural, today } from '../format.js';
import { statusMeaning, statusText } from './campaign-view.js';

/** Service facts: at most 50 rows, no paging, nothing says when more exist. */
const SERVICE_MAX = 50;
// Bounds that keep one result under 2,000 tokens: at most 25 rows a call, within an estimated
// token budget for their text and facts together (long ids or names show fewer, then `skip`).
const PAGE = 25;
const ROWS_BUDGET = 1_400;
const NAME_MAX = 60;
/** Service facts give the list's metrics no window, and the answer names none: we say so rather than guess. */
const METRICS_PERIOD = 'not stated by the service';

const Row = z.strictObject({
  campaign_id: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.string().describe('ENABLED, PAUSED, REMOVED (deleted, kept for reporting) or UNKNOWN'),
  daily_budget: z.number().optional().describe('Currency units.'),
  start_date: z.string().optional(),
  impressions: z.number().optional(),
  clicks: z.number().optional(),
  cost: z.number().optional().describe('Currency units.'),
  conversions: z.number().optional(),
});
type Row = z.infer<typeof Row>;

export const listAdCampaigns = defineTool({
  name: 'list_ad_campaigns',
  title: 'List Ad Campaigns',
  description:
    "The app's ad campaigns by spend (at most 50): campaign_id, name, type, status, daily budget. Read-only.",
  input: {
    app_id: appId,
    include_metrics: z.boolean().optional().describe('Add metrics (slower).'),
    skip: whole(0, SERVICE_MAX - 1).optional().describe('Rows to skip.'),
  },
  output: {
    count: z.number().describe('Campaigns returned, at most 50.'),
    more_may_exist: z.boolean().describe('Exactly 50 came back: the service may hold more.'),
    metrics_included: z.boolean(),
    metrics_period: z.string().optional().describe('With metrics: the period they cover.'),
    today: z.string().optional().describe('With metrics: YYYY-MM-DD, UTC.'),
    campaigns: z.array(Row),
    next_skip: z.number().optional().describe('skip value for the rows not shown.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token needs access to this app (workspace API keys are refused by ad endpoints).',
    404: "App not found (or not in the credential's workspace).",
    429: 'Rate limited by the service (the ad platform can pass its own limit through).',
  },
  async run({ app_id, include_metrics = false, skip = 0 }, ctx) {
    const { api, config, signal, clock } = ctx;
    const all = await api.listAdCampaigns(app_id, include_metrics, { signal });
    const rows = fit(all.slice(skip, skip + PAGE), include_metrics);
    const nextSkip = skip + rows.length < all.length ? skip + rows.length : undefined;
    const pending = include_metrics && all.some((campaign) => campaign.metrics_pending === true);
    const day = today(clock.now());
    const lines = [header(app_id, all.length, skip, rows.length, include_metrics && day, pending), ...rows.map(line)];
    if (nextSkip !== undefined) lines.push(`…and ${plural(all.length - nextSkip, 'more campaign')} (less spend) not shown: call again with skip: ${nextSkip}.`);
    const active = rows.find((row) => row.status === 'ENABLED') ?? rows.find((row) => row.status !== 'REMOVED');
    const rest = nextSkip !== undefined ? nextCall(config, 'list_ad_campaigns', { app_id, include_metrics: include_metrics || undefined, skip: nextSkip }) : '';
    const more = rest ? `; the rest with ${rest}` : '';
    const target = active && { app_id, campaign_id: active.campaign_id };
    const detail = target
      ? [aside(ctx, 'get_ad_campaign', target, (call) => call), aside(ctx, 'list_campaign_suggestions', target, (call) => `its suggestions: ${call}`)].filter(Boolean)
      : [];
    const lead = rows.length > 1 ? `The ${active?.status === 'ENABLED' ? 'active one' : 'one'} with the most spend` : 'The only one';
    const next = target
      ? detail.length > 0
        ? `${lead}: ${detail.join(', or ')}${rows.length > 1 ? '; for another, its campaign_id' : ''}${more}.`
        : `${ctx.offered.missing('get_ad_campaign')}${rest ? ` The rest of the list: ${rest}.` : ''}`
      : all.length === 0
        ? `Nothing to manage yet${aside(ctx, 'create_ad_campaign', {}, (call) => `; ${call} creates a campaign (after the user confirms its cost)`)}.`
        : `No active campaign among these rows${more || '; nothing more is needed'}.`;
    return {
      text: lines.join('\n'),
      next,
      structured: {
        count: all.length,
        more_may_exist: all.length >= SERVICE_MAX,
        metrics_included: include_metrics,
        ...(include_metrics ? { metrics_period: METRICS_PERIOD, today: day } : {}),
        campaigns: rows,
        ...(nextSkip !== undefined ? { next_skip: nextSkip } : {}),
      },
      view: viewData(app_id, rows, all.slice(skip, skip + rows.length), include_metrics),
    };
  },
});

/**
 * What the campaigns view shows beside the facts: each status on this page in the text's words, and
 * the rows whose metric zeros mean "not available yet" (the text says only that some are).
 */
function viewData(app: string, rows: Row[], page: CampaignRow[], metrics: boolean) {
  const statuses = [...new Set(rows.map((row) => row.status))].map((status) => {
    const meaning = statusMeaning(status);
    return { status, shown: statusText(status), ...(meaning ? { meaning } : {}) };
  });
  const pending = metrics ? rows.filter((_row, index) => page[index]?.metrics_pending === true).map((row) => row.campaign_id) : [];
  return { app_id: app, statuses, metrics_pending: pending };
}

/** `metrics`: today's date when metrics were asked for, else false. */
function header(app: string, count: number, skip: number, shown: number, metrics: string | false, pending: boolean): string {
  if (count === 0) return `No ad campaigns on app ${idText(app)}.`;
  const lines = [
    count >= SERVICE_MAX
      ? `${count} campaigns on app ${idText(app)}, most spend first. The service returns at most ${SERVICE_MAX} and does not say whether more exist: more may exist.`
      : `${plural(count, 'campaign')} on app ${idText(app)}, most spend first.`,
    metrics
      ? `Metrics: totals for a period ${METRICS_PERIOD}; today is ${metrics} (UTC); cost in the account currency.${pending ? ' Some rows are marked metrics_pending: their zeros mean not available yet.' : ''}`
      : 'Metrics not requested, so they are pending (the service reports zeros); include_metrics: true adds them.',
  ];
  if (skip > 0 || shown < count) lines.push(shown === 0 ? `No rows after skip ${skip}.` : `Rows ${skip + 1}-${skip + shown}:`);
  return lines.join('\n');
}

function toRow(campaign: CampaignRow, metrics: boolean): Row {
  const micros = campaign.daily_budget_micros;
  return {
    campaign_id: sanitize(campaign.id, 200),
    name: sanitize(campaign.campaign_name ?? '', NAME_MAX),
    type: sanitize(campaign.campaign_type ?? '?', 30),
    status: sanitize(campaign.status, 30),
    ...(typeof micros === 'number' ? { daily_budget: micros / 1_000_000 } : {}),
    ...(campaign.start_date ? { start_date: sanitize(campaign.start_date, 30) } : {}),
    ...(metrics
      ? {
          impressions: campaign.impressions ?? 0,
          clicks: campaign.clicks ?? 0,
          cost: (campaign.cost_micros ?? 0) / 1_000_000,
          conversions: campaign.conversions ?? 0,
        }
      : {}),
  };
}

/** The rows of this page that fit the token budget (at least one). */
function fit(page: CampaignRow[], metrics: boolean): Row[] {
  const rows = page.map((campaign) => toRow(campaign, metrics));
  return fitBudget(rows, ROWS_BUDGET, (row) => approxTokens(line(row)) + approxTokens(JSON.stringify(row)));
}

/** `- cmp_1 "Name" SMART ENABLED, 20.00/day, started 2026-10-03; 1200 impressions, …` */
function line(row: Row): string {
  const parts = [`- ${idText(row.campaign_id)} ${quote(row.name, NAME_MAX)} ${idText(row.type)} ${statusText(row.status)}`];
  parts.push(row.daily_budget !== undefined ? `${money(row.daily_budget * 1_000_000)}/day` : 'budget not given');
  if (row.start_date) parts.push(`started ${row.start_date}`);
  const text = parts.join(', ');
  if (row.impressions === undefined) return text;
  return `${text}; ${row.impressions} impressions, ${row.clicks} clicks, cost ${money((row.cost ?? 0) * 1_000_000)}, ${row.conversions} conversions`;
}
