import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppSchema, ResolutionOutcomeSchema } from '../src/sandbox/world-schema.js';
import { POST_STATUSES } from '../src/sandbox/world-schema-social.js';
import { KNOWN_STATUSES } from '../src/tools/social/post-summary.js';
import { TOOLS } from '../src/tools/index.js';
import { connect, type Harness } from './helpers.js';

/**
 * Issue 29: each tool's description agrees with its own warnings, status hints and refusals, and
 * with the service, on the words a model acts on: whether something is retried and by whom, which
 * roles exist, which statuses a result can hold.
 */

/** Arguments the default sandbox world takes, for a warning of every gated tool. */
const WARNED: Record<string, Record<string, unknown>> = {
  create_ad_campaign: { app_id: 'app_demo', campaign_name: 'Words', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' },
  resume_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_demo' },
  delete_ad_campaign: { app_id: 'app_demo', campaign_id: 'cmp_quiet' },
  apply_budget_recommendation: {
    app_id: 'app_demo',
    campaign_id: 'cmp_demo',
    recommendation_resource_name: 'customers/7100000001/recommendations/adnet_rec_budget_7100000001',
    recommended_daily_budget_micros: 35_000_000,
  },
  delete_email_template: { app_id: 'app_demo', template_id: 'tpl_seed_digest' },
  resolve_repo_conflicts: { app_id: 'app_demo' },
  send_app_chat_message: { app_id: 'app_demo', content: 'Make the header blue.' },
};

/** Every string under a JSON value: the descriptions at every depth of a schema. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) yield* strings(item);
}

/** What a tool tells a model before a call: its description and every description in its schemas. */
const described = (tool: Tool) => [tool.description ?? '', ...[...strings({ input: tool.inputSchema, output: tool.outputSchema })].filter((text) => text.includes(' '))];

type Actor = 'this server' | 'the service' | 'unsaid';
interface RetryClaim {
  actor: Actor;
  retried: boolean;
  said: string;
}
const NOT_RETRIED = /\b(never|not) (retried|retries|retry|resends|resent)\b/;
const RETRIED = /\b(automatic retry|retries once|retried automatically|one more automatic attempt)\b/;

/** The retry claims of a text, clause by clause, each with who it says retries (or does not). */
function retryClaims(text: string): RetryClaim[] {
  return text.split(/[.;(]\s*/).flatMap((clause) => {
    const retried = RETRIED.test(clause) && !NOT_RETRIED.test(clause);
    if (!retried && !NOT_RETRIED.test(clause)) return [];
    const actor: Actor = /\bthis server\b/i.test(clause) ? 'this server' : /\bthe service\b/i.test(clause) ? 'the service' : 'unsaid';
    return [{ actor, retried, said: clause.trim() }];
  });
}

/** Two claims contradict when they say opposite things of the same actor, or one of them names none. */
function contradictions(claims: RetryClaim[]): string[] {
  return claims.flatMap((yes) =>
    yes.retried ? claims.filter((no) => !no.retried && (no.actor === yes.actor || no.actor === 'unsaid' || yes.actor === 'unsaid')).map((no) => `"${yes.said}" vs "${no.said}"`) : [],
  );
}

/** Status words by what they describe, from the service's documents (spec 2.3, 2.5, 2.7; service facts) and the sandbox. */
const STATUSES: Record<string, readonly string[]> = {
  'social post': POST_STATUSES,
  campaign: ['ENABLED', 'PAUSED', 'REMOVED', 'UNKNOWN'],
  'scheduling job': ['pending', 'running', 'completed', 'failed'],
  'conflict resolution': ResolutionOutcomeSchema.options,
  'application email': ['builtin', 'custom', 'custom_not_sent'],
};
const ROLE_WORDS = ['user', 'editor', 'admin', 'viewer', 'owner', 'member'];
const words = (text: string, vocabulary: readonly string[]) => vocabulary.filter((word) => new RegExp(`(^|[^\\w])${word}([^\\w]|$)`).test(text));

describe("tools' own words agree with each other and with the service", () => {
  let h: Harness;
  let tools: Tool[];
  /** Per tool: its status hints, unknown-outcome and refusal texts, and its warning's text. */
  const said = new Map<string, string[]>();

  beforeAll(async () => {
    h = await connect();
    tools = (await h.client.listTools()).tools;
    for (const tool of TOOLS) {
      const gate = tool.gate;
      const own = [
        ...Object.values(tool.statusHints ?? {}).filter((hint): hint is string => typeof hint === 'string'),
        ...(gate ? [gate.unknownOutcome, ...Object.values(gate.refusals ?? {}).flatMap((refusal) => (refusal ? [refusal.why, refusal.next] : []))] : []),
      ];
      if (gate) own.push((await h.call(tool.name, WARNED[tool.name])).text);
      said.set(tool.name, own);
    }
  });
  afterAll(() => h.close());

  it('has a warning to compare for every gated tool', () => {
    for (const tool of TOOLS.filter((candidate) => candidate.gate)) expect(said.get(tool.name)!.at(-1), tool.name).toMatch(/^CONFIRMATION NEEDED\./);
  });

  it('never says a thing is retried and that it is not, of the same actor or without naming one', () => {
    const found = tools.flatMap((tool) => contradictions([...described(tool), ...said.get(tool.name)!].flatMap(retryClaims)).map((pair) => `${tool.name}: ${pair}`));
    expect(found).toEqual([]);
    // What the conflict resolution says, in both places: the service retries once, this server never resends.
    const resolve = tools.find((tool) => tool.name === 'resolve_repo_conflicts')!;
    expect(retryClaims(resolve.description!).map(({ actor, retried }) => [actor, retried])).toEqual([
      ['the service', true],
      ['this server', false],
    ]);
  });

  it('catches the contradiction issue 29 found, "never retried" beside "(one automatic retry)"', () => {
    expect(contradictions([...retryClaims('Consumes credits; can take minutes; never retried.'), ...retryClaims('two if the repository moves on while publishing (one automatic retry).')])).toHaveLength(1);
  });

  it('names the roles the service accepts by default, and only those, wherever a role is described', () => {
    const defaults = AppSchema.shape.roles.parse(undefined);
    const roles = tools.flatMap((tool) => Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>).filter(([name]) => name === 'role').map(([, field]) => [tool.name, field.description ?? ''] as const));
    expect(roles.map(([name]) => name)).toEqual(['share_app_with_groups', 'update_group_share']);
    for (const [name, description] of roles) {
      expect(words(description, ROLE_WORDS), name).toEqual(defaults);
      // Clauses about the share's role; a workspace role or app access ("editor access") is another thing.
      const about = said.get(name)!.flatMap((text) => text.split(/[.;:]\s*/)).filter((clause) => /\brole\b/.test(clause) && !/workspace|access/.test(clause));
      for (const clause of about) expect(words(clause, ROLE_WORDS).filter((role) => !defaults.includes(role)), `${name}: ${clause}`).toEqual([]);
    }
  });

  it('lists every status of a kind wherever it lists several, and the calendar statuses are the ones the calendar returns', () => {
    const partial = tools.flatMap((tool) =>
      described(tool).flatMap((text) =>
        Object.entries(STATUSES).flatMap(([kind, statuses]) => {
          const named = words(text, statuses);
          return named.length >= 3 && named.length < statuses.length ? [`${tool.name} lists ${kind} statuses ${named.join(', ')} but not ${statuses.filter((status) => !named.includes(status)).join(', ')}: ${text}`] : [];
        }),
      ),
    );
    expect(partial).toEqual([]);
    expect([...KNOWN_STATUSES].sort()).toEqual([...POST_STATUSES].sort());
    expect(words(tools.find((tool) => tool.name === 'list_social_posts')!.description!, POST_STATUSES)).toEqual(POST_STATUSES);
  });
});
