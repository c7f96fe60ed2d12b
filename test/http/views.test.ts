import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UI_CAPABILITIES } from '../views/browser.js';
import { connectHttp, connectStdio, ERAS, startHttp, type AnyClient, type Era, type HttpProcess } from './harness.js';

// Which clients the built server tells about its views (docs/views.md): every era over stdio, where
// initialize gives it the client's capabilities; over HTTP only 2026-07-28, whose every request
// carries them, as the 2025 eras are served statelessly without initialize's answer kept.

const viewOf = (tools: Array<{ name: string; _meta?: Record<string, unknown> }>, name: string) =>
  (tools.find((tool) => tool.name === name)?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;

async function viewsSeen(connecting: Promise<AnyClient>): Promise<{ card?: string; campaigns?: string; plain: boolean }> {
  const client = await connecting;
  try {
    const tools = (await client.listTools()) as Array<{ name: string; _meta?: Record<string, unknown> }>;
    return { card: viewOf(tools, 'create_ad_campaign'), campaigns: viewOf(tools, 'list_ad_campaigns'), plain: tools.every((tool) => tool._meta === undefined) };
  } finally {
    await client.close();
  }
}

const SHOWN = { card: 'ui://app-management/confirmation-card.html', campaigns: 'ui://app-management/campaigns.html', plain: false };
const NOT_SHOWN = { card: undefined, campaigns: undefined, plain: true };

describe('the views in the built server, by transport and protocol era', () => {
  let http: HttpProcess;
  beforeAll(async () => {
    http = await startHttp(['--sandbox']);
  });
  afterAll(() => http?.stop());

  it.each(ERAS)('names them over stdio to a %s client that declares the extension, and not to one that does not', async (era: Era) => {
    expect(await viewsSeen(connectStdio(era, { args: ['--sandbox'], capabilities: UI_CAPABILITIES }))).toEqual(SHOWN);
    expect(await viewsSeen(connectStdio(era, { args: ['--sandbox'] }))).toEqual(NOT_SHOWN);
  });

  it('names them over HTTP to a 2026-07-28 client that declares the extension, and not to one that does not', async () => {
    expect(await viewsSeen(connectHttp(http.mcp, '2026-07-28', { capabilities: UI_CAPABILITIES }))).toEqual(SHOWN);
    expect(await viewsSeen(connectHttp(http.mcp, '2026-07-28'))).toEqual(NOT_SHOWN);
  });

  it.each(['2025-06-18', '2025-11-25'] as const)('does not name them over HTTP to a %s client, whose capabilities a stateless server does not keep', async (era) => {
    expect(await viewsSeen(connectHttp(http.mcp, era, { capabilities: UI_CAPABILITIES }))).toEqual(NOT_SHOWN);
  });
});
