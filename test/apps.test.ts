import { describe, expect, it } from 'vitest';
import { CONFIRMATION_CARD_URI } from '../src/apps.js';
import { connect } from './helpers.js';
import { UI_CAPABILITIES } from './views/browser.js';

const ARGS = {
  app_id: 'app_demo',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
};

const VIEW_URIS = [CONFIRMATION_CARD_URI, 'ui://app-management/campaigns.html', 'ui://app-management/social-calendar.html', 'ui://app-management/suggestions.html'].sort();

describe('the views in tools/list and resources/list', () => {
  it('names a view on every gated tool and the four read tools for a client with the extension, and changes nothing for one without it', async () => {
    const plain = await connect();
    const withUi = await connect({ capabilities: UI_CAPABILITIES });
    try {
      const plainTools = (await plain.client.listTools()).tools;
      expect(plainTools.filter((tool) => tool._meta !== undefined)).toEqual([]);
      expect((await plain.client.listResources()).resources).toEqual([]);
      const uiTools = (await withUi.client.listTools()).tools;
      const viewOf = (name: string) => (uiTools.find((tool) => tool.name === name)?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      const carded = uiTools.filter((tool) => viewOf(tool.name) === CONFIRMATION_CARD_URI).map((tool) => tool.name);
      expect(carded.sort()).toEqual(['apply_budget_recommendation', 'create_ad_campaign', 'delete_ad_campaign', 'delete_email_template', 'resolve_repo_conflicts', 'resume_ad_campaign', 'send_app_chat_message'].sort());
      expect(viewOf('list_ad_campaigns')).toBe('ui://app-management/campaigns.html');
      expect(viewOf('get_ad_campaign')).toBe('ui://app-management/campaigns.html');
      expect(viewOf('list_campaign_suggestions')).toBe('ui://app-management/suggestions.html');
      expect(viewOf('list_social_posts')).toBe('ui://app-management/social-calendar.html');
      // Apart from _meta, the same list as a client without the extension gets.
      expect(uiTools.map(({ _meta: _ignored, ...tool }) => tool)).toEqual(plainTools);
      const listed = (await withUi.client.listResources()).resources;
      expect(listed.map((resource) => resource.uri).sort()).toEqual(VIEW_URIS);
      // No domain in any CSP list: a view may load nothing from any origin.
      expect(listed.every((resource) => resource.mimeType === 'text/html;profile=mcp-app' && JSON.stringify(resource._meta) === '{"ui":{"csp":{},"prefersBorder":true}}')).toBe(true);
    } finally {
      await plain.close();
      await withUi.close();
    }
  });

  it('gives a warning the same text and structuredContent with or without the extension, and its view data only with it', async () => {
    const plain = await connect();
    const withUi = await connect({ capabilities: UI_CAPABILITIES, sandbox: plain.sandbox });
    try {
      const args = { ...ARGS, campaign_name: 'Same either way' };
      const [a, b] = [await plain.client.callTool({ name: 'create_ad_campaign', arguments: args }), await withUi.client.callTool({ name: 'create_ad_campaign', arguments: args })];
      expect(b.content).toEqual(a.content);
      expect(b.structuredContent).toEqual(a.structuredContent);
      expect(a._meta).toBeUndefined();
      expect(b._meta?.['app-management/view']).toMatchObject({ action: (a.structuredContent as { action: string }).action, details: expect.arrayContaining([expect.stringContaining('Same either way')]) });
    } finally {
      await withUi.close();
      await plain.close();
    }
  });

  it('reads every view as one self-contained page of at most 150 KB, and refuses an unknown ui:// URI', async () => {
    const plain = await connect();
    try {
      for (const uri of VIEW_URIS) {
        const { contents } = await plain.client.readResource({ uri });
        const page = contents[0] as { uri: string; mimeType: string; text: string };
        expect(page).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app' });
        expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(150 * 1024);
        // Nothing that would fetch: no src/href attribute, no @import or url() in the style.
        expect(page.text).not.toMatch(/\s(src|href)\s*=|@import|url\(/i);
        expect(page.text).toContain("default-src 'none'");
      }
      await expect(plain.client.readResource({ uri: 'ui://app-management/nothing.html' })).rejects.toThrow(/not found/i);
    } finally {
      await plain.close();
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
