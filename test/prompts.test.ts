import { afterEach, describe, expect, it } from 'vitest';
import { PROMPTS } from '../src/prompts/index.js';
import { TOOLS } from '../src/tools/index.js';
import { connect, type Harness } from './helpers.js';

describe('workflow prompts', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('names only tools that exist', () => {
    const names = TOOLS.map((tool) => tool.name);
    for (const prompt of PROMPTS) expect(prompt.tools.filter((tool) => !names.includes(tool)), prompt.name).toEqual([]);
  });

  it('offers the five workflows, each taking app_id', async () => {
    h = await connect();
    const { prompts } = await h.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['launch_ad_campaign', 'review_ad_campaigns', 'sync_repository', 'customize_app_email', 'schedule_social_posts']);
    for (const prompt of prompts) expect(prompt.arguments?.find((arg) => arg.name === 'app_id')?.required, prompt.name).toBe(true);
  });

  it('walks the model through the tools in order, with the confirmation rule', async () => {
    h = await connect();
    const { messages } = await h.client.getPrompt({ name: 'sync_repository', arguments: { app_id: 'app_demo' } });
    expect(messages).toHaveLength(1);
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/^Sync app app_demo with its repository\./);
    const order = ['pull_repo_changes', 'resolve_repo_conflicts', 'read_app_conversation', 'send_app_chat_message', 'push_app_to_repo'].map((tool) => text.indexOf(tool));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('wait for my explicit yes; only then call it again with exactly the same arguments plus confirm: true');
  });

  it('drops app_id when the server is scoped to one app', async () => {
    h = await connect({ config: { appId: 'app_demo' } });
    const { prompts } = await h.client.listPrompts();
    for (const prompt of prompts) expect(prompt.arguments?.map((arg) => arg.name) ?? [], prompt.name).not.toContain('app_id');
    const { messages } = await h.client.getPrompt({ name: 'review_ad_campaigns', arguments: {} });
    expect((messages[0]!.content as { text: string }).text).toMatch(/^Review the ad campaigns of app app_demo\./);
  });

  it('offers only the workflows whose tools are all enabled', async () => {
    h = await connect({ config: { toolsets: ['campaigns', 'monitoring'] } });
    expect((await h.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['launch_ad_campaign', 'review_ad_campaigns']);
    await h.close();
    h = await connect({ config: { readOnly: true } });
    const listed = await h.client.listPrompts().catch(() => ({ prompts: [] }));
    expect(listed.prompts).toEqual([]);
  });

  it('strips hidden characters from the arguments it puts in the message', async () => {
    h = await connect();
    const { messages } = await h.client.getPrompt({ name: 'launch_ad_campaign', arguments: { app_id: 'app\u202e_demo', landing_page: 'https://x.example.com/\u{e0041}' } });
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/^Launch an ad campaign for app app_demo that links to https:\/\/x\.example\.com\/\./);
  });
});
