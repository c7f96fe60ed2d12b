import { BIN, cleanEnv } from '../process.js';

// Shared by the third-party client tests: how to start the built server, the workflows a scripted
// model runs, and how it reads the next step out of what a library hands it. Nothing here imports a
// client library; each library's adapter lives in its own file (ai-sdk-model.ts, agents-model.ts,
// genai-loop.ts).

/** The built server with its in-process sandbox, as every client here launches it over stdio. */
export const SERVER = { command: process.execPath, args: [BIN, '--sandbox'] };

/** The server's environment: none of a developer's APPMGMT_* settings, and only warnings on stderr. */
export function serverEnv(): Record<string, string> {
  return { ...cleanEnv(), APPMGMT_LOG_LEVEL: 'warn' };
}

export interface Call {
  tool: string;
  args: Record<string, unknown>;
}

/** Arguments that create a SMART campaign in the sandbox; each test names its own campaign. */
export function campaignArgs(campaign_name: string): Record<string, unknown> {
  return {
    app_id: 'app_demo',
    campaign_name,
    campaign_type: 'SMART',
    daily_budget_micros: 5_000_000,
    landing_page: 'https://demo-planner.sandbox.test/',
  };
}

/**
 * A workflow of the previous issue: the tools called in order, the first with `firstArgs` and each
 * later one with the arguments the previous result's next step names for it, and what the last result
 * shows once it completed. Add one here and every client test runs it; a test skips a workflow whose
 * tools the build under test does not offer.
 */
export interface Workflow {
  name: string;
  tools: string[];
  /** A function, so that each run may name what it creates differently. */
  firstArgs: () => Record<string, unknown>;
  /** Matches the last result (text or JSON) once the workflow completed. */
  finished: RegExp;
}

let launches = 0;

// Waiting for a scheduling job is no workflow here: the built server's sandbox runs on the real clock,
// so job_running completes only ~40 s after start-up. PENDING_JOB checks the step it would take instead.
export const WORKFLOWS: Workflow[] = [
  {
    // The user names the app: check_connection lists several and asks which, rather than picking one.
    name: 'review campaigns',
    tools: ['list_ad_campaigns', 'get_ad_campaign', 'list_campaign_suggestions'],
    firstArgs: () => ({ app_id: 'app_demo' }),
    finished: /suggestions? for campaign cmp_\w+|"campaign_id":"cmp_\w+","count"/,
  },
  {
    name: 'launch a campaign',
    tools: ['create_ad_campaign', 'create_ad_campaign', 'get_ad_campaign'],
    firstArgs: () => campaignArgs(`Workflow launch ${++launches}`),
    finished: /Workflow launch \d+/,
  },
];

/** A job still pending in the sandbox world, and the call its next step asks for (which would wait for real). */
export const PENDING_JOB = {
  call: { tool: 'get_scheduling_job', args: { app_id: 'app_demo', job_id: 'job_running' } },
  next: { tool: 'get_scheduling_job', args: { app_id: 'app_demo', job_id: 'job_running', wait_seconds: 60 } },
};

/** Why `workflow` cannot run against a server offering `offered`, or undefined when it can. */
export function unavailable(workflow: Workflow, offered: string[]): string | undefined {
  const missing = [...new Set(workflow.tools.filter((tool) => !offered.includes(tool)))];
  return missing.length > 0 ? `this build offers no ${missing.join(', ')}` : undefined;
}

/**
 * A scripted model's mind: given the tool results it has seen so far (as the library handed them to
 * it, flattened to a string), the call to make next, or undefined to stop calling tools and answer.
 * `calls` records what it decided, for assertions.
 */
export interface Script {
  next(seen: string[]): Call | undefined;
  calls: Call[];
}

/** A script that makes exactly these calls, whatever it sees. */
export function fixedScript(planned: Call[]): Script {
  const calls: Call[] = [];
  return {
    calls,
    next(seen) {
      const call = planned[seen.length];
      return call && record(calls, call);
    },
  };
}

/**
 * A script that knows the workflow's tools and takes every argument after the first call from the
 * previous result's next step (the call it names for the expected tool).
 * @throws Error when the next step does not name the expected tool, so the test fails saying why.
 */
export function guidedScript(workflow: Workflow): Script {
  const [first, ...then] = workflow.tools;
  const calls: Call[] = [];
  return {
    calls,
    next(seen) {
      if (seen.length === 0) return record(calls, { tool: first!, args: workflow.firstArgs() });
      const tool = then[seen.length - 1];
      if (!tool) return undefined;
      const last = seen.at(-1) ?? '';
      const next = nextStepIn(last);
      const call = next === undefined ? undefined : callNamedIn(next, tool, calls.at(-1));
      if (!call) throw new Error(`The next step does not name ${tool}. The model saw: ${last}`);
      return record(calls, call);
    },
  };
}

/**
 * A script that knows only the workflow's first call and the names of the tools offered: after it,
 * it makes whatever call the last next step names first, until one names no tool (as "Nothing more is
 * needed." does) or it made as many calls as the workflow has.
 */
export function nextOnlyScript(workflow: Workflow, offered: string[]): Script {
  const calls: Call[] = [];
  return {
    calls,
    next(seen) {
      if (seen.length === 0) return record(calls, { tool: workflow.tools[0]!, args: workflow.firstArgs() });
      if (calls.length >= workflow.tools.length) return undefined;
      const call = callNextStepNames(seen.at(-1) ?? '', offered, calls.at(-1));
      return call && record(calls, call);
    },
  };
}

/**
 * A script that makes one call, then works out the call the result's next step names and records it
 * in `calls` without making it, so that the test need not wait for what that call would do.
 */
export function peekScript(start: Call, offered: string[]): Script {
  const calls: Call[] = [];
  return {
    calls,
    next(seen) {
      if (seen.length === 0) return record(calls, start);
      const call = calls.length === 1 ? callNextStepNames(seen[0] ?? '', offered, start) : undefined;
      if (call) calls.push(call);
      return undefined;
    },
  };
}

function record(calls: Call[], call: Call): Call {
  calls.push(call);
  return call;
}

/**
 * The id arguments (`*_id`) of each call after the first that do not appear in the result seen just
 * before it: empty when every id was read from a previous result.
 */
export function idsNotReadFromPrevious(calls: Call[], seen: string[]): string[] {
  return calls.slice(1).flatMap((call, index) =>
    Object.entries(call.args)
      .filter(([name, value]) => name.endsWith('_id') && typeof value === 'string' && !(seen[index] ?? '').includes(value))
      .map(([name, value]) => `${call.tool} ${name}=${String(value)}`),
  );
}

/**
 * Whether a tool result reached the model as structuredContent alone: a JSON object with a `next`
 * string, no MCP content and none of the text's `[sandbox] ` prefix.
 */
export function isStructuredOnly(seen: string): boolean {
  const json = parseObject(seen);
  return typeof json?.next === 'string' && !('content' in json) && !seen.includes('[sandbox]');
}

/**
 * The next step in a tool result as a model sees it: the `next` field of a JSON result (top level or
 * under `structuredContent`), else the last `Next:` line of its text.
 */
export function nextStepIn(seen: string): string | undefined {
  const json = parseObject(seen);
  if (json) {
    const next = json.next ?? parseObject(json.structuredContent)?.next;
    return typeof next === 'string' ? next : nextStepIn(textOf(json.content));
  }
  return [...seen.matchAll(/^Next: (.*)$/gm)].at(-1)?.[1];
}

/** The call the result's next step names first among the `offered` tools, if it names one. */
function callNextStepNames(seen: string, offered: string[], previous: Call | undefined): Call | undefined {
  const next = nextStepIn(seen);
  if (next === undefined) return undefined;
  const named = offered
    .map((tool) => ({ tool, at: next.search(new RegExp(`\\b${tool}\\b`)) }))
    .filter(({ at }) => at >= 0)
    .sort((a, b) => a.at - b.at)[0];
  return named && callNamedIn(next, named.tool, previous);
}

/**
 * The call `next` names for `tool`: its JSON arguments (`tool {"app_id":…}`), or the previous call's
 * arguments plus `confirm: true` when `next` asks to repeat it that way, or no arguments; undefined
 * when `next` does not name the tool.
 */
function callNamedIn(next: string, tool: string, previous: Call | undefined): Call | undefined {
  const at = next.search(new RegExp(`\\b${tool}\\b`));
  if (at < 0) return undefined;
  const rest = next.slice(at + tool.length);
  const args = rest.startsWith(' {') ? leadingObject(rest.slice(1)) : undefined;
  if (args) return { tool, args };
  if (previous?.tool === tool && /same arguments plus confirm: true/.test(rest)) return { tool, args: { ...previous.args, confirm: true } };
  return { tool, args: {} };
}

/** The JSON object at the start of `text`, ignoring whatever follows it. */
function leadingObject(text: string): Record<string, unknown> | undefined {
  for (let end = text.indexOf('}'); end >= 0; end = text.indexOf('}', end + 1)) {
    const object = parseObject(text.slice(0, end + 1));
    if (object) return object;
  }
  return undefined;
}

/** The text of MCP content parts, joined by newlines. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object from a string (or the object itself), else undefined. */
export function parseObject(value: unknown): Record<string, unknown> | undefined {
  if (isRecord(value)) return value;
  if (typeof value !== 'string' || !value.trimStart().startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
