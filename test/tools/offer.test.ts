import { describe, expect, it } from 'vitest';
import { instructionsFor } from '../../src/instructions.js';
import { TOOLS } from '../../src/tools/index.js';
import { offeredOnly, offeredTo, shownSchema, shownTool } from '../../src/tools/offer.js';

/** Issue 29: what one caller is offered, and our own sentences without the tools they are not. */
describe('what a caller is offered', () => {
  it('says why each tool a selection leaves out is not offered, by the setting a person would change, never by its name', () => {
    const readOnly = offeredTo({ readOnly: true });
    expect(readOnly.has('list_social_posts')).toBe(true);
    expect(readOnly.missing('start_scheduling_posts')).toBe(
      '"Start Scheduling Posts" is not offered by this server: it runs read-only (--read-only or APPMGMT_READ_ONLY), so it offers only tools that change nothing.',
    );
    expect(offeredTo({ readOnly: false, toolsets: ['social'] }).missing('read_app_conversation')).toBe(
      '"Read App Conversation" is not offered by this server: its toolset, chat, is not among those enabled (--toolsets or APPMGMT_TOOLSETS).',
    );
    expect(offeredTo({ readOnly: false, tools: ['list_social_posts'] }).missing('get_scheduling_job')).toBe(
      '"Get Scheduling Job" is not offered by this server: it is not among the tools enabled (--tools or APPMGMT_TOOLS).',
    );
    for (const tool of TOOLS) expect(readOnly.missing(tool.name)).not.toContain(tool.name);
  });

  it("says a tool the server offers but a grant leaves out is the person's choice at connecting, not a server setting", () => {
    const server = { readOnly: false, toolsets: ['social' as const, 'chat' as const] };
    const granted = offeredTo({ readOnly: true, toolsets: ['social'] }, TOOLS, server);
    expect(granted.missing('start_scheduling_posts')).toBe(
      '"Start Scheduling Posts" is not offered on this connection: the person chose narrower access when connecting (read-only, some toolsets or one app); only they can widen it, by connecting again and choosing more on the consent page.',
    );
    expect(granted.missing('read_app_conversation')).toMatch(/^"Read App Conversation" is not offered on this connection: the person chose/);
    // Left out by the server itself: the operator's setting is named, whatever the grant says.
    expect(granted.missing('list_ad_campaigns')).toBe(
      '"List Ad Campaigns" is not offered by this server: its toolset, campaigns, is not among those enabled (--toolsets or APPMGMT_TOOLSETS).',
    );
    const said = instructionsFor({ readOnly: true, toolsets: ['social'], appId: 'app_1' }, granted, { ...server, appId: undefined });
    expect(said).toContain('This connection is scoped to app app_1');
    expect(said).toContain("This connection offers 3 of the server's 28 tools");
    expect(instructionsFor({ readOnly: true }, offeredTo({ readOnly: true }))).toContain('This server is read-only');
  });

  it('leaves out of our own text each sentence that names a tool the caller is not offered, and keeps the rest whole', () => {
    const offered = offeredTo({ readOnly: true });
    const text = 'Free, safe to repeat. Undo with resume_ad_campaign. Read it with get_ad_campaign, e.g. once. A 1.00 figure stays.';
    expect(offeredOnly(text, offered)).toBe('Free, safe to repeat. Read it with get_ad_campaign, e.g. once. A 1.00 figure stays.');
    expect(offeredOnly('Undo with resume_ad_campaign.', offered)).toBe('');
    expect(offeredOnly('No tool names here.', offered)).toBe('No tool names here.');
  });

  it('shows each tool with its descriptions, hints and refusals cut to what the caller is offered', () => {
    const offered = offeredTo({ readOnly: false, tools: ['apply_budget_recommendation'] });
    const apply = shownTool(TOOLS.find((tool) => tool.name === 'apply_budget_recommendation')!, offered);
    expect(apply.gate?.refusals?.[409]?.next).toBe('A shared budget can only be changed at the ad platform.');
    expect(apply.gate?.unknownOutcome).toBe('The budget may or may not have changed.');
    expect(apply.statusHints?.[404]).toBe('App, campaign or recommendation not found.');
    const schema = shownSchema({ description: 'Keep. Drop list_ad_campaigns here.', properties: { a: { description: 'From list_ad_campaigns.' }, description: { type: 'string' } } }, offered);
    expect(schema).toEqual({ description: 'Keep.', properties: { a: {}, description: { type: 'string' } } });
  });

  it('builds the instructions per selection: the ids, the rule for costly tools only when one is offered, and the mode', () => {
    const all = instructionsFor({ readOnly: false }, offeredTo({ readOnly: false }));
    expect(all).toContain('list_ad_campaigns, list_email_templates, list_group_shares and list_social_posts give the other ids.');
    expect(all).toContain('first return a warning and send nothing');
    expect(all).not.toMatch(/This server (is read-only|offers)/);
    const social = instructionsFor({ readOnly: true, toolsets: ['social'] }, offeredTo({ readOnly: true, toolsets: ['social'] }));
    expect(social).toBe(
      [
        'Start with check_connection. Ask the user for the app id (no operation lists apps). list_social_posts gives the other ids.',
        'This server offers 3 of its 28 tools; a result says when a step needs one it does not offer.',
        'Each result ends with Next: follow it.',
      ].join('\n'),
    );
    expect(instructionsFor({ readOnly: true, appId: 'app_1' }, offeredTo({ readOnly: true }))).toMatch(
      /^Start with check_connection\. This server is scoped to app app_1: tools take no app_id\..*\nThis server is read-only: it offers only tools that change nothing; a result says when a step needs one it does not offer\./s,
    );
  });
});
