import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultWorld } from '../../src/sandbox/built-in-world.js';
import { DEFAULT_WORLD } from '../../src/sandbox/default-world.js';
import { startSandbox } from '../../src/sandbox/http.js';
import { loadWorldFile, parseWorld } from '../../src/sandbox/world.js';
import { call, OWNER, paths } from './helpers.js';

const copy = () => structuredClone(DEFAULT_WORLD) as Record<string, any>;

describe('sandbox world', () => {
  it('parses the default world with the fixed names other code relies on', () => {
    const world = defaultWorld();
    expect(world.apps.find((app) => app.id === 'app_demo')?.workspace_id).toBe('ws_demo');
    const demo = world.workspaces.find((ws) => ws.id === 'ws_demo');
    expect(demo).toMatchObject({ currency: 'USD', eu_advertiser: false, conversion_tracking_verified: true, payment_method: true });
    expect(demo?.plan).toMatchObject({ paid_features: true, workspace_groups: true });
    expect(world.campaigns.find((c) => c.id === 'cmp_demo')?.app_id).toBe('app_demo');
    expect(world.jobs.map((job) => job.id)).toEqual(expect.arrayContaining(['job_running', 'job_failed', 'job_empty']));
    expect(world.groups.filter((g) => g.workspace_id === 'ws_demo').map((g) => g.id)).toEqual(expect.arrayContaining(['grp_design', 'grp_sales']));
  });

  it('names the bad field path in the error', () => {
    const world = copy();
    world.workspaces[0].currency = 'usd';
    expect(() => parseWorld(world)).toThrow(/world\.workspaces\[0\]\.currency: expected a three-letter currency code/);
  });

  it('names an unknown reference', () => {
    const world = copy();
    world.apps[1].workspace_id = 'ws_gone';
    expect(() => parseWorld(world)).toThrow(/world\.apps\[1\]\.workspace_id: unknown workspace "ws_gone"/);
  });

  it('rejects a field it does not know, so a typo never goes unnoticed', () => {
    const world = copy();
    world.workspaces[0].payment_methdo = true;
    expect(() => parseWorld(world)).toThrow(/world\.workspaces\[0\]: Unrecognized key: "payment_methdo"/);
  });

  it('loads a world file and reports a file that is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-world-'));
    const good = join(dir, 'world.json');
    writeFileSync(good, JSON.stringify(DEFAULT_WORLD));
    expect(loadWorldFile(good).apps.length).toBe(defaultWorld().apps.length);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    expect(() => loadWorldFile(bad)).toThrow(/is not JSON/);
    expect(() => loadWorldFile(join(dir, 'missing.json'))).toThrow(/cannot read sandbox world/);
  });

  it('keeps the built-in world valid and whole through JSON, as the build bundles it', () => {
    // The built server does not validate the built-in world: scripts/build.mjs bundles this very result as JSON.
    const world = parseWorld(DEFAULT_WORLD);
    expect(JSON.parse(JSON.stringify(world))).toStrictEqual(world);
    expect(defaultWorld()).toStrictEqual(world);
    expect(defaultWorld()).not.toBe(defaultWorld());
  });

  it('still validates a world file: an unknown time zone is named on every post that has it', () => {
    const world = copy();
    world.posts[0].scheduled_timezone = 'Mars/Olympus_Mons';
    world.posts[2].scheduled_timezone = 'Mars/Olympus_Mons';
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-world-')), 'world.json');
    writeFileSync(file, JSON.stringify(world));
    expect(() => loadWorldFile(file)).toThrow(
      /world\.posts\[0\]\.scheduled_timezone: unknown time zone "Mars\/Olympus_Mons"; world\.posts\[2\]\.scheduled_timezone: unknown time zone "Mars\/Olympus_Mons"/,
    );
  });

  it('runs another world given to startSandbox', async () => {
    const world = defaultWorld();
    world.workspaces[0]!.conversion_tracking_verified = false;
    const sandbox = await startSandbox({ world, seed: 7 });
    try {
      const answer = await call(sandbox, 'POST', paths.campaigns('app_demo'), {
        token: OWNER,
        body: { campaign_name: 'X', campaign_type: 'SMART', daily_budget_micros: 2_000_000, landing_page: 'https://x.test/' },
      });
      expect(answer.body.status).toBe('PAUSED');
    } finally {
      await sandbox.close();
    }
  });
});
