import { invalid } from '../respond.js';
import type { State } from '../state.js';
import type { SimResponse } from '../types.js';
import type { CampaignBody } from './campaign-body.js';

/** Section 8: image files over 5 MB are left out (read as MiB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MIN_LOGO_PIXELS = 128;

type Unfetchable = 'another_host' | 'too_large' | 'no_response';
type Fetched =
  | { kind: 'image'; width: number; height: number; bytes: number }
  | { kind: 'unfetchable'; why: Unfetchable }
  | { kind: 'not_image'; contentType: string };

const WHY: Record<Unfetchable, string> = {
  another_host: 'it is on another host',
  too_large: 'the file is over 5 MB',
  no_response: 'it did not answer',
};

/** What the service finds at an image address, per the world's `web` section. */
export function fetchAsset(state: State, address: string): Fetched {
  let host: string;
  try {
    host = new URL(address).hostname;
  } catch {
    return { kind: 'unfetchable', why: 'no_response' };
  }
  if (!state.web.asset_hosts.includes(host)) return { kind: 'unfetchable', why: 'another_host' };
  if (state.web.unreachable_hosts.includes(host)) return { kind: 'unfetchable', why: 'no_response' };
  const resource = state.web.resources.find((candidate) => candidate.url === address);
  if (!resource) return { kind: 'image', width: 1200, height: 1200, bytes: 250_000 };
  if (resource.kind === 'no_response') return { kind: 'unfetchable', why: 'no_response' };
  if (resource.kind === 'not_image') return { kind: 'not_image', contentType: resource.content_type };
  if (resource.bytes > MAX_IMAGE_BYTES) return { kind: 'unfetchable', why: 'too_large' };
  return { kind: 'image', width: resource.width, height: resource.height, bytes: resource.bytes };
}

export interface ScreenedImages {
  kept: CampaignBody['images'];
  leftOut: { url: string; kind: string; reason: string }[];
}

/** 4.2 rule 4: unfetchable images are left out; an address that is not an image rejects the request. */
export function screenImages(state: State, images: CampaignBody['images']): ScreenedImages | SimResponse {
  const result: ScreenedImages = { kept: [], leftOut: [] };
  for (const [index, image] of images.entries()) {
    const fetched = fetchAsset(state, image.url);
    if (fetched.kind === 'not_image') {
      return invalid({ loc: ['body', 'images', String(index), 'url'], msg: `${image.url} is not an image (${fetched.contentType})`, type: 'value_error' });
    }
    if (fetched.kind === 'unfetchable') result.leftOut.push({ url: image.url, kind: image.kind, reason: WHY[fetched.why] });
    else result.kept.push(image);
  }
  return result;
}

export interface CheckedLogo {
  url: string;
  /** 2.2: a non-square logo is padded to square. */
  padded: boolean;
}

/** 2.2 logo: required for PERFORMANCE_MAX, at least 128x128; one the service cannot fetch fails the request. */
export function checkLogo(state: State, logoUrl: string | null | undefined): CheckedLogo | SimResponse {
  const loc = ['body', 'logo_url'];
  if (!logoUrl) return invalid({ loc, msg: 'A logo is required for PERFORMANCE_MAX campaigns', type: 'missing' });
  const fetched = fetchAsset(state, logoUrl);
  if (fetched.kind === 'unfetchable') return invalid({ loc, msg: `The logo could not be fetched: ${WHY[fetched.why]}`, type: 'value_error' });
  if (fetched.kind === 'not_image') return invalid({ loc, msg: `The logo is not an image (${fetched.contentType})`, type: 'value_error' });
  if (fetched.width < MIN_LOGO_PIXELS || fetched.height < MIN_LOGO_PIXELS) {
    return invalid({ loc, msg: `The logo is ${fetched.width}x${fetched.height}; it must be at least ${MIN_LOGO_PIXELS}x${MIN_LOGO_PIXELS}`, type: 'value_error' });
  }
  return { url: logoUrl, padded: fetched.width !== fetched.height };
}
