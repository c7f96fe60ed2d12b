import { describe, expect, it } from 'vitest';
import { CONFIRMATION_CARD_URI } from '../src/apps.js';
import { connect, type Harness } from './helpers.js';
import { UI_CAPABILITIES, UI_EXTENSION } from './views/browser.js';

const ARGS = {
  app_id: 'app_demo',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};

const VIEW_URIS = [CONFIRMATION_CARD_URI, 'ui://app-management/campaigns.html', 'ui://app-management/social-calendar.html', 'ui://app-management/suggestions.html'].sort();
const GATED = ['apply_budget_recommendation', 'create_ad_campaign', 'delete_ad_campaign', 'delete_email_template', 'resolve_repo_conflicts', 'resume_ad_campaign', 'send_app_chat_message'];

interface CardData {
  tool: string;
  arguments: Record<string, unknown>;
  pending: boolean;
  expires_at: string;
  verb: string;
  destructive: boolean;
  approval: 'form' | 'card';
  details: string[];
  daily_budget?: number;
  outcome?: string;
}

const cardOf = (result: { _meta?: Record<string, unknown> }) => result._meta?.['app-management/view'] as CardData;
const posts = (harness: Harness) => harness.sandbox.requests.filter((request) => request.method === 'POST').length;

describe('the views in tools/list and resources/list', () => {
  it('names a view on every gated tool and the four read tools for every client, lists the views, and declares the extension', async () => {
    const plain = await connect();
    const withUi = await connect({ capabilities: UI_CAPABILITIES });
    try {
      const tools = (await plain.client.listTools()).tools;
      // A client that does not declare the extension gets the very same list: it ignores _meta, and the model never reads it.
      expect((await withUi.client.listTools()).tools).toEqual(tools);
      const viewOf = (name: string) => (tools.find((tool) => tool.name === name)?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      expect(tools.filter((tool) => viewOf(tool.name) === CONFIRMATION_CARD_URI).map((tool) => tool.name).sort()).toEqual(GATED);
      expect(viewOf('list_ad_campaigns')).toBe('ui://app-management/campaigns.html');
      expect(viewOf('get_ad_campaign')).toBe('ui://app-management/campaigns.html');
      expect(viewOf('list_campaign_suggestions')).toBe('ui://app-management/suggestions.html');
      expect(viewOf('list_social_posts')).toBe('ui://app-management/social-calendar.html');
      expect(tools.filter((tool) => tool._meta !== undefined)).toHaveLength(GATED.length + 4);
      for (const harness of [plain, withUi]) {
        const listed = (await harness.client.listResources()).resources;
        expect(listed.map((resource) => resource.uri).sort()).toEqual(VIEW_URIS);
        // No domain in any CSP list: a view may load nothing from any origin.
        expect(listed.every((resource) => resource.mimeType === 'text/html;profile=mcp-app' && JSON.stringify(resource._meta) === '{"ui":{"csp":{},"prefersBorder":true}}')).toBe(true);
        expect(harness.client.getServerCapabilities()?.extensions).toEqual({ [UI_EXTENSION]: {} });
      }
    } finally {
      await plain.close();
      await withUi.close();
    }
  });

  it('reads every view as one readable page of at most 40 KB that fetches nothing, and refuses an unknown ui:// URI', async () => {
    const plain = await connect();
    try {
      for (const uri of VIEW_URIS) {
        const { contents } = await plain.client.readResource({ uri });
        const page = contents[0] as { uri: string; mimeType: string; text: string };
        expect(page).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' });
        expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(40 * 1024);
        // Nothing that would fetch: no src/href attribute, no @import or url() in the style.
        expect(page.text).not.toMatch(/\s(src|href)\s*=|@import|url\(/i);
        // Scripts inline only and no connections; fonts and styles are left to the host's policy, so its fonts load.
        expect(page.text).toContain("script-src 'unsafe-inline'; connect-src 'none'");
        expect(page.text).not.toMatch(/default-src|font-src|style-src/);
        // Readable: no packed script, and the bridge's own names are there to read.
        expect(page.text).not.toMatch(/base64|DecompressionStream/);
        expect(page.text).toContain('ui/notifications/initialized');
      }
      await expect(plain.client.readResource({ uri: 'ui://app-management/nothing.html' })).rejects.toThrow(/not found/i);
    } finally {
      await plain.close();
    }
  });
});

describe("a gated result's view data: what the confirmation card needs, in the result itself", () => {
  it('gives every client the same warning, with the tool, the exact arguments to confirm, the expiry and that it is pending', async () => {
    const plain = await connect();
    const withUi = await connect({ capabilities: UI_CAPABILITIES, sandbox: plain.sandbox });
    try {
      const args = { ...ARGS, campaign_name: 'Same either way' };
      const [a, b] = [await plain.client.callTool({ name: 'create_ad_campaign', arguments: args }), await withUi.client.callTool({ name: 'create_ad_campaign', arguments: args })];
      expect(b.content).toEqual(a.content);
      expect(b.structuredContent).toEqual(a.structuredContent);
      const card = cardOf(a);
      expect(cardOf(b)).toMatchObject({ ...card, expires_at: expect.any(String) });
      expect(card).toMatchObject({ tool: 'create_ad_campaign', arguments: args, pending: true, verb: 'Create campaign', destructive: false, approval: 'card', daily_budget: 5 });
      expect(card.details.join('\n')).toContain('Same either way');
      // The expiry the gate holds: ten minutes after the warning.
      expect(Date.parse(card.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
      expect(Date.parse(card.expires_at) - Date.now()).toBeLessThanOrEqual(10 * 60_000);
      // Confirming with exactly those arguments sends one request, and its answer says what was done.
      const done = await plain.client.callTool({ name: 'create_ad_campaign', arguments: { ...card.arguments, confirm: true } });
      expect(done.isError).toBeFalsy();
      expect(cardOf(done)).toMatchObject({ tool: 'create_ad_campaign', pending: false, outcome: expect.stringMatching(/^created campaign cmp_\w+/) });
      expect(posts(plain)).toBe(1);
    } finally {
      await withUi.close();
      await plain.close();
    }
  });

  it('marks a destructive warning, and says when the client will ask the person in its own approval form', async () => {
    const withForms = await connect({ capabilities: { ...UI_CAPABILITIES, elicitation: { form: {} } } as never });
    try {
      const warning = await withForms.client.callTool({ name: 'delete_ad_campaign', arguments: { app_id: 'app_demo', campaign_id: 'cmp_quiet' } });
      expect(cardOf(warning)).toMatchObject({ tool: 'delete_ad_campaign', verb: 'Delete campaign', destructive: true, approval: 'form' });
    } finally {
      await withForms.close();
    }
  });

  it('keeps the arguments exact (hidden characters included) while the lines to read lose them, so a confirmation with them matches', async () => {
    const harness = await connect();
    try {
      const name = 'Zero\u200bwidth';
      const warning = await harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: name } });
      const card = cardOf(warning);
      expect(card.arguments.campaign_name).toBe(name);
      expect(card.details.join('\n')).not.toContain('\u200b');
      const done = await harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...card.arguments, confirm: true } });
      expect(done.isError).toBeFalsy();
      expect(posts(harness)).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it('leaves app_id out of the arguments to confirm on a server scoped to one app, where it is not an argument', async () => {
    const harness = await connect({ config: { appId: 'app_demo' } });
    try {
      const { app_id: _app, ...unscoped } = ARGS;
      const warning = await harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...unscoped, campaign_name: 'Scoped' } });
      const card = cardOf(warning);
      expect(card.arguments).toEqual({ ...unscoped, campaign_name: 'Scoped' });
      const done = await harness.client.callTool({ name: 'create_ad_campaign', arguments: { ...card.arguments, confirm: true } });
      expect(done.isError).toBeFalsy();
      expect(posts(harness)).toBe(1);
    } finally {
      await harness.close();
    }
  });

  it("redacts a credential in a result's view data as in its text", async () => {
    const withUi = await connect({ capabilities: UI_CAPABILITIES });
    try {
      const token = withUi.sandbox.simulation.credentials.accessToken;
      const result = await withUi.client.callTool({ name: 'create_ad_campaign', arguments: { ...ARGS, campaign_name: `Leak ${token}` } });
      const everything = JSON.stringify(result);
      expect(everything).not.toContain(token);
      expect(JSON.stringify(result._meta)).toContain('[redacted]');
    } finally {
      await withUi.close();
    }
  });
});
