import type { Config } from '../config.js';
import { CATALOG, selectTools, toolsetOf, type ToolLike } from './catalog.js';
import type { AnyTool, Offered } from './define.js';

/**
 * What one caller is offered (issue 29): the tools their configuration selects, why each other tool
 * is not offered, and the server's own sentences with every one that names a tool not offered left
 * out. A model told to call a tool this server does not have gets "Tool … not found" and guesses.
 */

type Selection = Pick<Config, 'tools' | 'toolsets' | 'readOnly'>;

/**
 * The tools `config` selects from `all`, with the reason for every one it leaves out. `server` is the
 * server's own configuration when `config` is a caller's narrower one (an OAuth grant, issue 26): a
 * tool the server offers but the grant leaves out is not offered because of the grant, and only the
 * person can change that.
 */
export function offeredTo<T extends ToolLike = ToolLike>(config: Selection, all: readonly T[] = CATALOG as unknown as readonly T[], server: Selection = config): Offered & { tools: T[] } {
  const tools = selectTools(config, all);
  const names = new Set(tools.map((tool) => tool.name));
  const serverNames = server === config ? names : new Set(selectTools(server, all).map((tool) => tool.name));
  const byName = new Map<string, ToolLike>(CATALOG.map((tool) => [tool.name, tool]));
  return {
    tools,
    has: (tool) => names.has(tool),
    missing: (tool) => {
      const known = byName.get(tool);
      if (known && serverNames.has(tool)) return `"${known.title}" is not offered on this connection: ${OUTSIDE_GRANT}.`;
      return `${known ? `"${known.title}"` : 'That step'} is not offered by this server: ${known ? whyNot(server, known) : 'it has no such tool'}.`;
    },
  };
}

/** Why a tool the server offers is not offered to a caller whose grant leaves it out. */
const OUTSIDE_GRANT = 'the person chose narrower access when connecting (read-only, some toolsets or one app); only they can widen it, by connecting again and choosing more on the consent page';

/** Why the server's own `config` leaves `tool` out, naming the setting its operator would change. */
function whyNot(config: Selection, tool: ToolLike): string {
  const toolset = toolsetOf(tool.name);
  if (config.toolsets && toolset && !config.toolsets.includes(toolset)) {
    return `its toolset, ${toolset}, is not among those enabled (--toolsets or APPMGMT_TOOLSETS)`;
  }
  if (config.tools && !config.tools.includes(tool.name)) return 'it is not among the tools enabled (--tools or APPMGMT_TOOLS)';
  if (config.readOnly && !tool.annotations.readOnlyHint) return 'it runs read-only (--read-only or APPMGMT_READ_ONLY), so it offers only tools that change nothing';
  return 'it is not enabled here';
}

const TOOL_NAMES = new Set(CATALOG.map((tool) => tool.name));
/** A snake_case word: every tool name is one. */
const SNAKE_WORD = /\b[a-z]+(?:_[a-z]+)+\b/g;
/** Sentence ends: `.`, `!` or `?` and a space, but not in "e.g." or "i.e.". */
const SENTENCE_END = /(?<=(?<!\be\.g|\bi\.e)[.!?])\s+/;

/** Does `text` name a tool of the registry that `offered` does not have? */
export function namesMissingTool(text: string, offered: Pick<Offered, 'has'>): boolean {
  return (text.match(SNAKE_WORD) ?? []).some((word) => TOOL_NAMES.has(word) && !offered.has(word));
}

/**
 * Our own text (a description, a status hint) without the sentences that name a tool this caller
 * is not offered; '' when every sentence does. Only for text we wrote: it splits at sentence ends.
 */
export function offeredOnly(text: string, offered: Pick<Offered, 'has'>): string {
  if (!namesMissingTool(text, offered)) return text;
  return text
    .split(SENTENCE_END)
    .filter((sentence) => !namesMissingTool(sentence, offered))
    .join(' ');
}

/** What a refusal or an unknown outcome says when every sentence of its own named a tool not offered. */
const FALLBACK_NEXT = 'Tell the user what the service answered; the step after it is not offered by this server.';

/**
 * A tool as one caller is shown it: its description, status hints, unknown-outcome and refusal texts
 * without the sentences that name a tool the caller is not offered. Built once per selection.
 */
export function shownTool(tool: AnyTool, offered: Pick<Offered, 'has'>): AnyTool {
  const shown = (text: string) => offeredOnly(text, offered);
  const hints = tool.statusHints && Object.fromEntries(Object.entries(tool.statusHints).flatMap(([status, hint]) => (hint && shown(hint) ? [[status, shown(hint)]] : [])));
  const gate = tool.gate && {
    ...tool.gate,
    unknownOutcome: shown(tool.gate.unknownOutcome) || FALLBACK_NEXT,
    ...(tool.gate.refusals
      ? { refusals: Object.fromEntries(Object.entries(tool.gate.refusals).map(([status, refusal]) => [status, refusal && { why: refusal.why, next: shown(refusal.next) || FALLBACK_NEXT }])) }
      : {}),
  };
  return { ...tool, description: shown(tool.description), ...(hints ? { statusHints: hints } : {}), ...(gate ? { gate } : {}) } as AnyTool;
}

/** A JSON Schema with every `description`, at every depth, shown as offeredOnly leaves it (an emptied one is left out). */
export function shownSchema(schema: Record<string, unknown>, offered: Pick<Offered, 'has'>): Record<string, unknown> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'description' && typeof value === 'string') {
        const text = offeredOnly(value, offered);
        if (text) out[key] = text;
      } else out[key] = walk(value);
    }
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}
