import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

// Workflow (a) of issue 10 against the default sandbox world. The only id typed here is the app the
// user names; every other id and amount is read from a previous result.
const APP = 'app_demo';

interface Row {
  campaign_id: string;
  status: string;
  daily_budget?: number;
}
interface Fact {
  id: string;
  action?: string;
  recommendation_type?: string;
  recommendation_resource_name?: string;
  recommended_daily_budget_micros?: number;
}

describe('workflow (a): list campaigns, apply a budget recommendation, pause, resume, delete', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());

  it('walks from the campaign list to a deleted campaign that stays listed as REMOVED', async () => {
    // 1. List campaigns: the next step names the first active campaign.
    const listed = await h.call('list_ad_campaigns', { app_id: APP });
    expect(listed.isError, listed.text).toBe(false);
    const rows = listed.structured?.campaigns as Row[];
    const campaign = rows.find((row) => row.status === 'ENABLED')!;
    expect(listed.text).toContain(`- ${campaign.campaign_id} `);
    expect(listed.structured?.next).toContain(`get_ad_campaign {"app_id":"${APP}","campaign_id":"${campaign.campaign_id}"}`);
    const campaignId = campaign.campaign_id;
    const before = campaign.daily_budget!;

    // 2. Suggestions: a CAMPAIGN_BUDGET one carries what apply_budget_recommendation needs.
    const suggestions = await h.call('list_campaign_suggestions', { app_id: APP, campaign_id: campaignId });
    expect(suggestions.isError, suggestions.text).toBe(false);
    const facts = ['high', 'medium', 'low'].flatMap((severity) => (suggestions.structured?.[severity] as Fact[]) ?? []);
    const budget = facts.find((fact) => fact.recommendation_type === 'CAMPAIGN_BUDGET' && fact.action && fact.recommendation_resource_name)!;
    expect(budget).toBeDefined();
    expect(suggestions.text).toContain(`recommendation_resource_name "${budget.recommendation_resource_name}"`);
    expect(suggestions.text).not.toContain('not a tool here');
    expect(suggestions.structured?.next).toContain('apply_budget_recommendation');
    const applyArgs = {
      app_id: APP,
      campaign_id: campaignId,
      recommendation_resource_name: budget.recommendation_resource_name!,
      recommended_daily_budget_micros: budget.recommended_daily_budget_micros!,
    };
    const newBudget = applyArgs.recommended_daily_budget_micros / 1_000_000;

    // 3. Apply (warn, confirm): the warning shows current → new.
    const applyWarning = await h.call('apply_budget_recommendation', applyArgs);
    expect(applyWarning.text).toMatch(/^CONFIRMATION NEEDED\. Nothing was sent\./);
    expect(applyWarning.structured?.action).toContain(`daily budget ${before.toFixed(2)} → ${newBudget.toFixed(2)}`);
    expect(applyWarning.text).toContain("The amount confirms the recommendation's figure and cannot be another");
    const applied = await h.call('apply_budget_recommendation', { ...applyArgs, confirm: true });
    expect(applied.isError, applied.text).toBe(false);
    expect(applied.structured).toMatchObject({ already_applied: false, daily_budget: newBudget });

    // 4. Get: the new budget, and the campaign no longer budget-limited.
    const got = await h.call('get_ad_campaign', { app_id: APP, campaign_id: campaignId });
    expect(got.structured).toMatchObject({ campaign_id: campaignId, daily_budget: newBudget, status: 'ENABLED' });
    expect(got.text).toContain(`daily budget ${newBudget.toFixed(2)} a day`);
    expect(got.structured?.primary_status_reasons).not.toContain('CAMPAIGN_BUDGET_LIMITED');

    // Applying again: an applied recommendation leaves the suggestions, so the warning's read refuses it
    // before anything is remembered (issue 16), and a repeated confirm says it was carried out already (issue 17).
    const again = await h.call('apply_budget_recommendation', applyArgs);
    expect(again.isError).toBe(true);
    expect(again.text).toMatch(/^Refused: no budget suggestion of campaign \S+ names .* now: it may .* be applied already/);
    expect((await h.call('apply_budget_recommendation', { ...applyArgs, confirm: true })).text).toMatch(
      /^NOT SENT: this exact call \(same arguments\) was already carried out at .*Nothing was sent now\./,
    );

    // 5. Pause: no confirmation; the campaign reads back PAUSED.
    const paused = await h.call('pause_ad_campaign', { app_id: APP, campaign_id: campaignId });
    expect(paused.isError, paused.text).toBe(false);
    expect(paused.text).toContain('spend already incurred today is still billed');
    expect((await h.call('get_ad_campaign', { app_id: APP, campaign_id: campaignId })).structured?.status).toBe('PAUSED');

    // 6. Resume (warn, confirm): the warning shows the new daily budget and roughly per month.
    const resumeWarning = await h.call('resume_ad_campaign', { app_id: APP, campaign_id: campaignId });
    expect(resumeWarning.structured?.cost).toBe(
      `daily budget ${newBudget.toFixed(2)} in the account currency, roughly ${(newBudget * 30.4).toFixed(2)} a month; real money while it serves.`,
    );
    const resumed = await h.call('resume_ad_campaign', { app_id: APP, campaign_id: campaignId, confirm: true });
    expect(resumed.isError, resumed.text).toBe(false);
    expect((await h.call('get_ad_campaign', { app_id: APP, campaign_id: campaignId })).structured?.status).toBe('ENABLED');

    // 7. Delete (warn, confirm): the warning says it is permanent and stays listed as REMOVED.
    const deleteWarning = await h.call('delete_ad_campaign', { app_id: APP, campaign_id: campaignId });
    expect(deleteWarning.structured?.cost).toContain('permanent, no undo');
    expect(deleteWarning.text).toContain('remains listed with status REMOVED');
    const deleted = await h.call('delete_ad_campaign', { app_id: APP, campaign_id: campaignId, confirm: true });
    expect(deleted.isError, deleted.text).toBe(false);

    // 8. Listed as REMOVED, and no longer the campaign the next step points at.
    const after = await h.call('list_ad_campaigns', { app_id: APP });
    const row = (after.structured?.campaigns as Row[]).find((r) => r.campaign_id === campaignId);
    expect(row?.status).toBe('REMOVED');
    expect(after.text).toContain(`- ${campaignId} `);
    expect(after.text).toMatch(new RegExp(`- ${campaignId} .* REMOVED \\(deleted, kept for reporting\\)`));
    expect(after.structured?.next).not.toContain(`"campaign_id":"${campaignId}"`);
  });
});
