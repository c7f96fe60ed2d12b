import { fail, isResponse, ok } from '../respond.js';
import type { Route, RouteContext } from '../router.js';
import type { RuntimeCampaign, State } from '../state.js';
import type { SimResponse } from '../types.js';
import type { Workspace } from '../world.js';
import { findCampaign } from './campaign-manage.js';
import { guardApp } from './guard.js';

type Action = 'paused' | 'resumed' | 'deleted';

/**
 * Pause, resume and delete share their checks and their 409: the ad platform timed out after the
 * change was sent. Like creation, the sandbox applies the change anyway, so a client that retries
 * without reading the campaign back finds it already done.
 */
function statusRoute(method: 'POST' | 'DELETE', suffix: string, action: Action, change: (campaign: RuntimeCampaign, workspace: Workspace, state: State) => SimResponse | undefined): Route {
  return {
    method,
    path: `/api/apps/:app_id/adnet-ads/campaigns/:campaign_id${suffix}`,
    handle(context: RouteContext) {
      const guarded = guardApp(context, 'token', 'editor');
      if (isResponse(guarded)) return guarded;
      const campaign = findCampaign(context, guarded);
      if (isResponse(campaign)) return campaign;
      const refused = change(campaign, guarded.workspace, context.state);
      if (refused) return refused;
      if (context.state.flags.adnetUnreachable) {
        return fail(409, `adnet did not answer in time; the campaign may or may not have been ${action}. Read it back before retrying.`);
      }
      return ok({ action });
    },
  };
}

function setStatus(campaign: RuntimeCampaign, status: RuntimeCampaign['status'], state: State): void {
  if (campaign.status === status) return;
  campaign.status = status;
  campaign.updated_at = state.clock.now();
}

const deleted = (verb: string) => fail(400, `The campaign is deleted (REMOVED) and kept only for reporting; it cannot be ${verb}.`);

/** Stops serving; pausing a paused campaign succeeds and changes nothing; needs no payment method. */
export const pauseCampaign = statusRoute('POST', '/pause', 'paused', (campaign, _workspace, state) => {
  if (campaign.status === 'REMOVED') return deleted('paused');
  setStatus(campaign, 'PAUSED', state);
  return undefined;
});

/** A reason the service paused a campaign for, while it still holds. */
function heldReason(campaign: RuntimeCampaign, workspace: Workspace): boolean {
  if (campaign.paused_by_service === 'unpaid_balance') return !workspace.good_standing;
  if (campaign.paused_by_service === 'conversion_tracking') return !workspace.conversion_tracking_verified;
  return false;
}

/**
 * Re-opens spend: 402 without a payment method or good standing, and it stays paused. A campaign
 * the service paused itself is paused again at once while the reason holds (the answer is still
 * `resumed`; reading it back shows PAUSED).
 */
export const resumeCampaign = statusRoute('POST', '/resume', 'resumed', (campaign, workspace, state) => {
  if (campaign.status === 'REMOVED') return deleted('resumed');
  if (!workspace.payment_method) return fail(402, 'The workspace has no payment method; add one before resuming a campaign. The campaign stays paused.');
  if (!workspace.good_standing) return fail(402, 'The workspace account is not in good standing; settle the balance before resuming. The campaign stays paused.');
  if (heldReason(campaign, workspace)) return undefined;
  delete campaign.paused_by_service;
  campaign.learning_started = true;
  setStatus(campaign, 'ENABLED', state);
  return undefined;
});

/** Permanent: the campaign stays listed with status REMOVED. Deleting it again changes nothing (our choice). */
export const deleteCampaign = statusRoute('DELETE', '', 'deleted', (campaign, _workspace, state) => {
  setStatus(campaign, 'REMOVED', state);
  return undefined;
});
