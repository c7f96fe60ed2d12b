import { describe, expect, it } from 'vitest';
import { call, OWNER, paths, pmaxBody, smartBody, useSandbox } from './helpers.js';

const FILES = 'https://files.sandbox.test';

describe('sandbox 4.2 campaign assets and sitelinks', () => {
  const s = useSandbox();
  const create = (body: unknown) => call(s.sandbox, 'POST', paths.campaigns('app_demo'), { token: OWNER, body });
  const details = (id: string) => s.sandbox.simulation.inspect().campaigns.find((c) => c.id === id)?.details;

  it('leaves out images on another host, over 5 MB or not answering', async () => {
    const images = [
      ...pmaxBody().images,
      { url: 'https://images.elsewhere.test/a.png', kind: 'MARKETING_IMAGE' },
      { url: `${FILES}/huge-banner.png`, kind: 'MARKETING_IMAGE' },
      { url: `${FILES}/silent.png`, kind: 'SQUARE_MARKETING_IMAGE' },
    ];
    const answer = await create(pmaxBody({ images }));
    expect(answer.status).toBe(200);
    const kept = details(answer.body.id);
    expect(kept?.images).toHaveLength(2);
    expect((kept?.images_left_out as { reason: string }[]).map((item) => item.reason)).toEqual([
      'it is on another host; the service fetches images only from files.sandbox.test',
      'the file is over 5 MB, the largest the service fetches',
      'it did not answer',
    ]);
  });

  it('names the hosts it fetches from when the logo is on another host', async () => {
    const answer = await create(pmaxBody({ logo_url: 'https://cdn.example.test/logo.png' }));
    expect(answer.body.detail).toEqual([
      { loc: ['body', 'logo_url'], msg: 'The logo could not be fetched: it is on another host; the service fetches images only from files.sandbox.test', type: 'value_error' },
    ]);
  });

  it('names the logo, every non-image address and a missing declaration in one 422', async () => {
    const images = [...pmaxBody().images, { url: `${FILES}/brochure.html`, kind: 'MARKETING_IMAGE' }, { url: `${FILES}/brochure.html`, kind: 'SQUARE_MARKETING_IMAGE' }];
    // app_eu belongs to an EU advertiser with no declaration on file.
    const answer = await call(s.sandbox, 'POST', paths.campaigns('app_eu'), { token: 'pat_eu_owner', body: pmaxBody({ logo_url: undefined, images }) });
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((item: { loc: string[] }) => item.loc.join('.'))).toEqual([
      'body.contains_eu_political_advertising',
      'body.logo_url',
      'body.images.2.url',
      'body.images.3.url',
    ]);
    expect(answer.body.detail[1].msg).toBe('A logo is required for PERFORMANCE_MAX campaigns: an image file of at least 128x128 on files.sandbox.test');
  });

  it('names the images it left out when a required slot ends up empty', async () => {
    const images = [
      { url: `${FILES}/banner.png`, kind: 'MARKETING_IMAGE' },
      { url: 'https://cdn.example.test/square.png', kind: 'SQUARE_MARKETING_IMAGE' },
    ];
    const answer = await create(pmaxBody({ images }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toBe(
      'adnet: NOT_ENOUGH_SQUARE_MARKETING_IMAGE_ASSET: a PERFORMANCE_MAX campaign needs at least one usable SQUARE_MARKETING_IMAGE. SQUARE_MARKETING_IMAGE https://cdn.example.test/square.png was left out: it is on another host; the service fetches images only from files.sandbox.test',
    );
  });

  it('rejects a geo target that is not a constant id, with an example', async () => {
    const answer = await create(smartBody({ geo_targets: ['US'] }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toBe('adnet: INVALID_GEO_TARGET_CONSTANT: "US" is not a geo target constant id; ids are numeric, e.g. 2840 (United States)');
    expect(s.sandbox.simulation.inspect().campaigns.some((c) => c.campaign_name === smartBody().campaign_name && c.geo_targets.includes('US'))).toBe(false);
  });

  it('rejects an image address that is not an image', async () => {
    const images = [...pmaxBody().images, { url: `${FILES}/brochure.html`, kind: 'MARKETING_IMAGE' }];
    const answer = await create(pmaxBody({ images }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ loc: ['body', 'images', '2', 'url'] });
    expect(answer.body.detail[0].msg).toMatch(/not an image/);
  });

  it('rejects the campaign when leaving images out empties a required slot', async () => {
    const images = [
      { url: `${FILES}/banner.png`, kind: 'MARKETING_IMAGE' },
      { url: `${FILES}/huge-banner.png`, kind: 'SQUARE_MARKETING_IMAGE' },
    ];
    const answer = await create(pmaxBody({ images }));
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/^adnet: NOT_ENOUGH_SQUARE_MARKETING_IMAGE_ASSET: /);
  });

  it('fails the whole request when the logo cannot be fetched', async () => {
    const answer = await create(pmaxBody({ logo_url: 'https://elsewhere.test/logo.png' }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ loc: ['body', 'logo_url'] });
    expect(answer.body.detail[0].msg).toMatch(/could not be fetched/);
  });

  it('rejects a logo smaller than 128x128', async () => {
    const answer = await create(pmaxBody({ logo_url: `${FILES}/tiny-logo.png` }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].msg).toMatch(/at least 128x128/);
  });

  it('pads a non-square logo to square', async () => {
    const answer = await create(pmaxBody({ logo_url: `${FILES}/wide-logo.png` }));
    expect(answer.status).toBe(200);
    expect(details(answer.body.id)?.logo).toEqual({ url: `${FILES}/wide-logo.png`, padded: true });
  });

  it('requires a logo for PERFORMANCE_MAX', async () => {
    const answer = await create(pmaxBody({ logo_url: undefined }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ loc: ['body', 'logo_url'], type: 'missing' });
  });

  it('ignores logo, images and sitelinks for SMART', async () => {
    const answer = await create(
      smartBody({ logo_url: 'https://elsewhere.test/x.png', images: [{ url: `${FILES}/brochure.html`, kind: 'MARKETING_IMAGE' }], sitelinks: [{ text: 'only text' }] }),
    );
    expect(answer.status).toBe(200);
    expect(details(answer.body.id)?.sitelinks).toEqual([]);
  });

  it('drops empty sitelink rows and collapses exact duplicates', async () => {
    const pricing = { text: 'Pricing', url: 'https://demo-planner.sandbox.test/pricing' };
    const sitelinks = [pricing, { text: '', url: '' }, {}, pricing, { text: 'Pricing', url: 'https://demo-planner.sandbox.test/Pricing' }];
    const answer = await create(pmaxBody({ sitelinks }));
    expect(answer.status).toBe(200);
    expect(details(answer.body.id)?.sitelinks).toHaveLength(2);
  });

  it('rejects a sitelink row with only text or only url', async () => {
    const answer = await create(pmaxBody({ sitelinks: [{ text: 'Pricing', url: 'https://x.test/' }, { text: 'Contact' }, { url: 'https://x.test/a' }] }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((item: { loc: string[] }) => item.loc)).toEqual([
      ['body', 'sitelinks', '1', 'url'],
      ['body', 'sitelinks', '2', 'text'],
    ]);
  });

  it('rejects more than 20 sitelinks but accepts 20', async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `Link ${i}`, url: `https://demo-planner.sandbox.test/${i}` }));
    expect((await create(pmaxBody({ sitelinks: links(20) }))).status).toBe(200);
    const answer = await create(pmaxBody({ sitelinks: links(21) }));
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0]).toMatchObject({ loc: ['body', 'sitelinks'], type: 'too_long' });
  });
});
