import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

/**
 * Issue 17: warnings speak of what the user decides, not of how the request travels. Header names,
 * the server's environment variables and the HTTP method are nothing a model or a user can act on.
 */
const IMPLEMENTATION_DETAIL = /X-Request-ID|APPMGMT_|\bRequest: (GET|POST|PUT|PATCH|DELETE)\b|\bno body\b|\bheader\b/;

describe('confirmation warnings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  /** Valid first calls of every gated tool against the default sandbox world (create_ad_campaign's warning has its own tests). */
  async function firstCalls(): Promise<Array<[string, Record<string, unknown>]>> {
    const suggestions = await h.call('list_campaign_suggestions', { app_id: 'app_demo', campaign_id: 'cmp_demo' });
    type Suggestion = { recommendation_resource_name?: string; recommended_daily_budget_micros?: number };
    const budget = (suggestions.structured?.high as Suggestion[]).find((row) => row.recommendation_resource_name)!;
    return [
      ['send_app_chat_message', { app_id: 'app_demo', content: 'Add a dark mode.' }],
      ['resolve_repo_conflicts', { app_id: 'app_demo' }],
      ['resume_ad_campaign', { app_id: 'app_demo', campaign_id: 'cmp_quiet' }],
      ['delete_ad_campaign', { app_id: 'app_demo', campaign_id: 'cmp_quiet' }],
      ['delete_email_template', { app_id: 'app_demo', template_id: 'tpl_seed_digest' }],
      [
        'apply_budget_recommendation',
        { app_id: 'app_demo', campaign_id: 'cmp_demo', recommendation_resource_name: budget.recommendation_resource_name, recommended_daily_budget_micros: budget.recommended_daily_budget_micros },
      ],
    ];
  }

  it('name no header, environment variable or HTTP method', async () => {
    const calls = await firstCalls();
    for (const [tool, args] of calls) {
      const warning = await h.call(tool, args);
      expect(warning.structured?.confirmation_needed, `${tool}: ${warning.text}`).toBe(true);
      expect(`${warning.text}\n${JSON.stringify(warning.structured)}`, tool).not.toMatch(IMPLEMENTATION_DETAIL);
    }
  });
});
