import { describe, expect, it } from 'vitest';
import { silentLog } from '../../src/log.js';
import { createAuditTrail, type AuditLine } from '../../src/observe/audit.js';
import { budgeted, limitedServer, warnAndConfirm } from '../gate/allowance-support.js';
import { memorySink } from './audit-support.js';

/**
 * The daily limits in the audit trail: each reservation, release and refusal is a line of the call
 * it belongs to, saying the day, what it counted, the user's sum after it and their limit.
 */

describe('the daily limits in the audit trail', () => {
  it('records the reservation, the release and the refusals, each on the line of its call', async () => {
    const trail = memorySink();
    const time = { t: 0 };
    const audit = createAuditTrail({ sink: trail.sink, now: () => time.t, redact: (text) => text, log: silentLog });
    const server = await limitedServer({ spendLimitDailyMicros: 30_000_000 }, { audit });
    try {
      time.t = server.time.t;
      const owner = await server.user();
      expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Kept', 20))).outcome.isError).toBe(false);
      server.sandbox.script({ method: 'POST', path: '/api/apps/app_demo/adnet-ads/campaigns', status: 402, body: { detail: 'No payment method' } });
      expect((await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Refused by the service', 10))).outcome.isError).toBe(true);
      const late = await owner.call('create_ad_campaign', budgeted('Late', 10)); // fits now...
      expect(late.isError).toBe(false);
      await warnAndConfirm(owner, 'create_ad_campaign', budgeted('Meanwhile', 10)); // ...then not any more
      await owner.call('create_ad_campaign', { ...budgeted('Late', 10), confirm: true });
      await owner.call('create_ad_campaign', budgeted('Over', 5));

      const lines = trail.parsed();
      const byCall = new Map<string, AuditLine[]>();
      for (const line of lines) byCall.set(line.call, [...(byCall.get(line.call) ?? []), line]);
      const steps = (line: AuditLine) => `${line.step}:${line.outcome}${line.reason ? `:${line.reason}` : ''}`;
      const confirmed = [...byCall.values()].filter((call) => call.some((line) => line.step === 'confirmed'));
      expect(confirmed.map((call) => call.map(steps))).toEqual([
        ['confirmed:pending', 'reserved:pending', 'sent:pending', 'answered:success'],
        ['confirmed:pending', 'reserved:pending', 'sent:pending', 'answered:refused', 'released:refused'],
        ['confirmed:pending', 'reserved:pending', 'sent:pending', 'answered:success'],
        ['confirmed:pending', 'refused:refused:over_limit'],
      ]);
      const counting = (line: AuditLine) => ({ day: line.day, unit: line.unit, counted: line.counted, used: line.used, limit: line.limit });
      const [kept, released, meanwhile] = confirmed.map((call) => call.filter((line) => line.step === 'reserved' || line.step === 'released').map(counting));
      expect(kept).toEqual([{ day: '2026-11-25', unit: 'micros', counted: 20_000_000, used: 20_000_000, limit: 30_000_000 }]);
      expect(released).toEqual([
        { day: '2026-11-25', unit: 'micros', counted: 10_000_000, used: 30_000_000, limit: 30_000_000 },
        { day: '2026-11-25', unit: 'micros', counted: 10_000_000, used: 20_000_000, limit: 30_000_000 },
      ]);
      expect(meanwhile).toEqual([{ day: '2026-11-25', unit: 'micros', counted: 10_000_000, used: 30_000_000, limit: 30_000_000 }]);
      // The refusal at the warning stands alone: nothing was warned, confirmed or counted.
      const atWarning = lines.filter((line) => line.reason === 'over_limit' && byCall.get(line.call)!.length === 1);
      expect(atWarning).toHaveLength(1);
      expect(atWarning[0]!.summary).toMatch(/^REFUSED: over your daily spending limit: this create_ad_campaign call would commit 5\.00/);
      // Everything but the refusal of the warning step happened to counted calls of one user.
      expect(new Set(lines.map((line) => line.user)).size).toBe(1);
      expect(server.creates()).toBe(3);
    } finally {
      await server.close();
    }
  });
});
