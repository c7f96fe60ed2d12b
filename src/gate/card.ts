import { viewArguments } from '../apps.js';
import { CONFIRM_WINDOW_MS } from './store.js';
import type { GatedTool, ToolResult, Warning } from '../tools/define.js';

/**
 * What the confirmation card (views/confirmation-card.ts) needs, carried in a gated result's own view
 * data: the card must not depend on the host's `toolInfo` or tool input, which the MCP Apps spec makes
 * optional and hosts such as MCP Inspector leave out (issue 27). A warning names the tool, the exact
 * arguments a confirmation must repeat, when it lapses and that it is pending; an answer of a confirmed
 * call says in a few words what was done.
 */

/** The card's button for each gated tool: the verb of what it does, as a person would say it. */
const VERBS: Record<string, string> = {
  create_ad_campaign: 'Create campaign',
  resume_ad_campaign: 'Resume campaign',
  apply_budget_recommendation: 'Apply budget',
  delete_ad_campaign: 'Delete campaign',
  delete_email_template: 'Delete template',
  resolve_repo_conflicts: 'Resolve conflicts',
  send_app_chat_message: 'Send message',
};

/** Arguments that are daily amounts in micros of the account currency: the card shows them in units. */
const DAILY_MICROS = /(^|_)daily_budget_micros$/;

export interface WarningFacts {
  /** The arguments the warning was given for, without confirm (the gate's `request`). */
  request: Record<string, unknown>;
  warning: Warning;
  /** When the warning was recorded (the gate's clock). */
  at: number;
  /** The server is scoped to one app: app_id is not an argument a client may send. */
  scoped: boolean;
  /** The client takes approval forms: a confirmed call asks the person in the client's own form. */
  form: boolean;
}

/** The view data of a warning. */
export function warningView(tool: GatedTool, { request, warning, at, scoped, form }: WarningFacts): Record<string, unknown> {
  const args = viewArguments(request, scoped);
  const daily = Object.entries(args).find(([name, value]) => DAILY_MICROS.test(name) && typeof value === 'number');
  return {
    tool: tool.name,
    arguments: args,
    pending: true,
    expires_at: new Date(at + CONFIRM_WINDOW_MS).toISOString(),
    verb: VERBS[tool.name] ?? tool.title,
    // Only what cannot be undone is red: a spend is gated too, but it is not a loss.
    destructive: tool.cost === 'permanent',
    approval: form ? 'form' : 'card',
    action: warning.action,
    details: warning.details,
    cost: warning.cost,
    ...(daily ? { daily_budget: (daily[1] as number) / 1_000_000 } : {}),
  };
}

/** A confirmed call's answer with the card's one line of what was done (the gate's summary). */
export function doneView(tool: GatedTool, result: ToolResult, summary: string): ToolResult {
  return { ...result, view: { ...result.view, tool: tool.name, pending: false, outcome: summary } };
}
