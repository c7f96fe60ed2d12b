import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_CAPABILITIES, UI_EXTENSION } from '../views/browser.js';
import { connectHttp, connectStdio, ERAS, startHttp, type AnyClient, type Era, type HttpProcess } from './harness.js';

// Every client the built server meets is told about its views (docs/views.md), over each transport and
// protocol era, whether or not it declares the extension: a 2025-era client over HTTP is served without
// a session, so the server could not remember what it declared, and a client without the extension
// ignores `_meta`. The server declares the extension in its own capabilities. A result's view data is
// left out only for a 2026-07-28 request whose client capabilities leave the extension out.

const VIEW_URIS = ['ui://app-management/campaigns.html', 'ui://app-management/confirmation-card.html', 'ui://app-management/social-calendar.html', 'ui://app-management/suggestions.html'];

const viewOf = (tools: Array<{ name: string; _meta?: Record<string, unknown> }>, name: string) =>
  (tools.find((tool) => tool.name === name)?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;

/** What one client learns of the views: the tools that name one, the resources listed, a page read, the server's declaration. */
async function viewsSeen(connecting: Promise<AnyClient>) {
  const client = await connecting;
  try {
    const tools = await client.listTools();
    const listed = (await client.sdk.listResources()).resources;
    const page = (await client.sdk.readResource({ uri: 'ui://app-management/confirmation-card.html' })).contents[0]!;
    const warning = await client.sdk.callTool({ name: 'create_ad_campaign', arguments: { app_id: 'app_demo', campaign_name: 'Era test', campaign_type: 'SMART', daily_budget_micros: 5_000_000, landing_page: 'https://demo-planner.sandbox.test/' } });
    return {
      card: viewOf(tools, 'create_ad_campaign'),
      campaigns: viewOf(tools, 'list_ad_campaigns'),
      resources: listed.map((resource) => resource.uri).sort(),
      page: { mimeType: page.mimeType, html: page.text?.startsWith('<!doctype html>') },
      declared: (client.sdk.getServerCapabilities()?.extensions as Record<string, unknown> | undefined)?.[UI_EXTENSION],
      cardData: (warning._meta?.['app-management/view'] as { tool?: string; pending?: boolean } | undefined) && {
        tool: (warning._meta!['app-management/view'] as { tool: string }).tool,
        pending: (warning._meta!['app-management/view'] as { pending: boolean }).pending,
      },
    };
  } finally {
    await client.close();
  }
}

const SEEN = {
  card: 'ui://app-management/confirmation-card.html',
  campaigns: 'ui://app-management/campaigns.html',
  resources: VIEW_URIS,
  page: { mimeType: 'text/html;profile=mcp-app', html: true },
  declared: {},
  cardData: { tool: 'create_ad_campaign', pending: true },
};

/** What a client that does not declare the extension sees: the same, but a 2026-07-28 result has no view data. */
const withoutExtension = (era: Era) => (era === '2026-07-28' ? { ...SEEN, cardData: undefined } : SEEN);

describe('the views in the built server, by transport and protocol era', () => {
  let http: HttpProcess;
  beforeAll(async () => {
    http = await startHttp(['--sandbox']);
  });
  afterAll(() => http?.stop());

  it.each(ERAS)('names and serves them over HTTP to a %s client, with the extension declared or not', async (era: Era) => {
    expect(await viewsSeen(connectHttp(http.mcp, era, { capabilities: UI_CAPABILITIES }))).toEqual(SEEN);
    expect(await viewsSeen(connectHttp(http.mcp, era))).toEqual(withoutExtension(era));
  });

  // A 2026-07-28 tools/call builds its server without views or prompts (src/server.ts): every other method still has them.
  it.each(ERAS)('serves the workflow prompts over HTTP to a %s client, before and after a tool call', async (era: Era) => {
    const client = await connectHttp(http.mcp, era);
    try {
      const before = (await client.sdk.listPrompts()).prompts.map((prompt) => prompt.name);
      expect(before).toContain('review_ad_campaigns');
      expect((await client.callTool('list_ad_campaigns', { app_id: 'app_demo' })).isError).toBe(false);
      expect((await client.sdk.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(before);
      const prompt = await client.sdk.getPrompt({ name: 'review_ad_campaigns', arguments: { app_id: 'app_demo' } });
      expect(prompt.messages[0]?.content.text).toContain('app app_demo');
      expect(client.sdk.getServerCapabilities()?.prompts).toBeDefined();
    } finally {
      await client.close();
    }
  });

  it.each(ERAS)('names and serves them over stdio to a %s client, with the extension declared or not', async (era: Era) => {
    expect(await viewsSeen(connectStdio(era, { args: ['--sandbox'], capabilities: UI_CAPABILITIES }))).toEqual(SEEN);
    expect(await viewsSeen(connectStdio(era, { args: ['--sandbox'] }))).toEqual(withoutExtension(era));
  });
});
