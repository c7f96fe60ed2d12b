import { workspaceRole } from '../access.js';
import { identify } from '../auth.js';
import { fail, invalid, ok } from '../respond.js';
import type { Route } from '../router.js';
import { DAY_MS, iso, type State } from '../state.js';
import type { Workspace } from '../world.js';

/** Service facts: the health check needs no credential. */
export const monitoringHealth: Route = {
  method: 'GET',
  path: '/api/v1/monitoring/health',
  handle: ({ state }) => ok({ status: 'healthy', version: '1.0.0', timestamp: iso(state.clock.now()) }),
};

/**
 * 4.8 / section 5 rule 3: a personal API key of a workspace admin or owner. Everything else, a
 * missing key, a member's key, a workspace API key (no person, so no role) or a key of another
 * workspace, is 401. A workspace that does not exist is 404, as the real service answers.
 */
export const monitoringAnalytics: Route = {
  method: 'GET',
  path: '/api/v1/monitoring/analytics/:workspace_id',
  handle({ state, req, params }) {
    const secret = req.headers.api_key?.trim();
    if (!secret) return fail(401, 'Missing credentials: send an API key in the "api_key" header.');
    const caller = identify(state, secret);
    if (!caller || caller.kind !== 'personal_api_key') return fail(401, 'Invalid API key.');
    const workspace = state.workspaces.find((candidate) => candidate.id === params.workspace_id);
    if (!workspace) return fail(404, 'Workspace not found.');
    const role = workspaceRole(state, caller.userId, workspace.id);
    if (caller.workspaceId !== workspace.id || (role !== 'owner' && role !== 'admin')) {
      return fail(401, 'Monitoring needs the admin or owner role in this workspace.');
    }
    const period = periodOf(req.query, state.clock.now());
    if ('loc' in period) return invalid(period);
    return ok(analytics(state, workspace, period));
  },
};

interface Period {
  from: string;
  to: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The days the figures cover: `from` defaults to the start of the billing period (the calendar
 * month, UTC, in this simulation) and `to` to today. A date that is not YYYY-MM-DD is a 422.
 */
function periodOf(query: URLSearchParams, now: number): Period | { loc: string[]; msg: string; type: string } {
  const today = iso(now).slice(0, 10);
  const asked = { from: query.get('from') ?? `${today.slice(0, 8)}01`, to: query.get('to') ?? today };
  for (const field of ['from', 'to'] as const) {
    const value = asked[field];
    if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
      return { loc: ['query', field], msg: 'Input should be a valid date in the format YYYY-MM-DD', type: 'date_from_datetime_parsing' };
    }
  }
  if (asked.from > asked.to) return { loc: ['query', 'from'], msg: 'from must not be after to', type: 'value_error' };
  return asked;
}

/**
 * Messages sent on each day of `period`, from the world's two figures: today's count, the rest of
 * this month spread evenly over its earlier days, and that same daily average before this month.
 * Days after today had none.
 */
function messagesIn(period: Period, monitoring: { messages_today: number; messages_this_month: number }, now: number): number {
  const today = iso(now).slice(0, 10);
  const dayOfMonth = Number(today.slice(8, 10));
  const earlier = Math.max(0, monitoring.messages_this_month - monitoring.messages_today);
  const average = dayOfMonth > 1 ? earlier / (dayOfMonth - 1) : monitoring.messages_today;
  let total = 0;
  for (let day = Date.parse(`${period.from}T00:00:00Z`); day <= Date.parse(`${period.to}T00:00:00Z`); day += DAY_MS) {
    const date = iso(day).slice(0, 10);
    if (date > today) break;
    total += date === today ? monitoring.messages_today : average;
  }
  return Math.round(total);
}

/** An Enterprise analytics answer: known keys plus deprecated zeros and one key clients do not know. */
function analytics(state: State, workspace: Workspace, period: Period) {
  const m = workspace.monitoring;
  const members = state.users.filter((user) => user.workspace_roles[workspace.id]);
  const apps = state.apps.filter((app) => app.workspace_id === workspace.id);
  const allocations = members.map((user) => {
    const used = m.member_messages_today[user.id] ?? 0;
    return {
      user_id: user.id,
      email: user.email,
      role: user.workspace_roles[workspace.id],
      daily_message_limit: m.member_daily_limit,
      messages_used_today: used,
      over_limit: used > m.member_daily_limit,
    };
  });
  return {
    workspace_id: workspace.id,
    generated_at: iso(state.clock.now()),
    period: { from: period.from, to: period.to },
    summary: {
      messages_in_period: messagesIn(period, m, state.clock.now()),
      members: members.length,
      apps: apps.length,
      active_members_today: allocations.filter((a) => a.messages_used_today > 0).length,
      messages_today: m.messages_today,
      messages_this_month: m.messages_this_month,
      credits_remaining: workspace.credits,
    },
    credit_pool: {
      tier: m.tier,
      daily_message_limit: m.daily_message_limit,
      messages_used_today: m.messages_today,
      monthly_message_limit: m.monthly_message_limit,
      messages_used_this_month: m.messages_this_month,
      bonus_credits: m.bonus_credits,
      gift_card_balance_cents: m.gift_card_balance_cents,
      over_daily_limit: m.messages_today > m.daily_message_limit,
      over_monthly_limit: m.messages_this_month > m.monthly_message_limit,
    },
    member_allocations: allocations,
    // Deprecated and always zero (service facts).
    seats: { total: 0, used: 0, available: 0 },
    user_distribution: { by_seat_type: { full: 0, lite: 0, viewer: 0 } },
    // The answer may grow: a key no client knows yet.
    usage_forecast: { projected_messages_this_month: m.messages_this_month * 2, confidence: 'low' },
  };
}
